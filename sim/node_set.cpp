#include "sim/node_set.h"

namespace topsim {
namespace {

// Set bits of a word: the instruction where the build targets it (TOPSIM_POPCNT, CMakeLists.txt),
// else by shifts and masks (std::popcount would be a library call).
int ones(uint64_t x) {
#ifdef __POPCNT__
  return std::popcount(x);
#else
  x -= (x >> 1) & 0x5555555555555555ULL;
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return static_cast<int>((x * 0x0101010101010101ULL) >> 56);
#endif
}

}  // namespace

size_t NodeSet::next_word(size_t w) const {
  if (w >= words_.size()) return words_.size();
  size_t s = w / 64;
  uint64_t bits = summary_[s] & (~uint64_t{0} << (w % 64));
  while (bits == 0) {
    if (++s == summary_.size()) return words_.size();
    bits = summary_[s];
  }
  return s * 64 + static_cast<size_t>(std::countr_zero(bits));
}

int NodeSet::next(int from) const {
  size_t w = word_of(from);
  if (w >= words_.size()) return -1;
  uint64_t bits = words_[w] & (~uint64_t{0} << (static_cast<unsigned>(from) % 64));
  if (bits == 0) {
    w = next_word(w + 1);
    if (w == words_.size()) return -1;
    bits = words_[w];
  }
  return static_cast<int>(w * 64 + static_cast<size_t>(std::countr_zero(bits)));
}

int NodeSet::nth(size_t k) const {
  size_t block = 0;
  for (; block < block_size_.size() && k >= block_size_[block]; ++block) k -= block_size_[block];
  if (block == block_size_.size()) return -1;
  for (size_t w = next_word(block * 64); w < words_.size(); w = next_word(w + 1)) {
    uint64_t bits = words_[w];
    const auto count = static_cast<size_t>(ones(bits));
    if (k >= count) {
      k -= count;
      continue;
    }
    for (; k > 0; --k) bits &= bits - 1;  // drop the k lowest nodes of this word
    return static_cast<int>(w * 64 + static_cast<size_t>(std::countr_zero(bits)));
  }
  return -1;
}

}  // namespace topsim
