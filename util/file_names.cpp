#include "util/file_names.h"

namespace topsim {
namespace {

bool bad_byte(unsigned char c) { return c == '/' || c == '\\' || c < 0x20 || c == 0x7f; }

}  // namespace

std::string safe_file_name(std::string_view name) {
  std::string out;
  for (unsigned char c : name) {
    if (out.empty() && (c == '.' || c == '-')) continue;
    out += bad_byte(c) ? '_' : static_cast<char>(c);
  }
  if (out.size() > kMaxFileNameBytes) {
    size_t cut = kMaxFileNameBytes;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xc0) == 0x80) --cut;  // not inside a UTF-8 sequence
    out.resize(cut);
  }
  return out.empty() ? "unnamed" : out;
}

}  // namespace topsim
