// A small, stable digest of bytes (FNV-1a, 64 bits), for identities written into files: the same
// bytes give the same digest on every machine and in every run. Not for security.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace topsim {

// FNV-1a: offset basis and prime of the 64-bit variant (http://www.isthe.com/chongo/tech/comp/fnv/,
// retrieved 2026-11).
inline constexpr uint64_t kFnv1a64Offset = 14695981039346656037ull;
inline constexpr uint64_t kFnv1a64Prime = 1099511628211ull;

// The digest of `bytes` continued from `state` (chain calls to digest bytes given in pieces).
inline uint64_t fnv1a64(std::string_view bytes, uint64_t state = kFnv1a64Offset) {
  for (const char c : bytes) state = (state ^ static_cast<unsigned char>(c)) * kFnv1a64Prime;
  return state;
}

// 16 lower-case hexadecimal digits.
inline std::string hex64(uint64_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, value >>= 4) out[static_cast<size_t>(i)] = kDigits[value & 15];
  return out;
}

}  // namespace topsim
