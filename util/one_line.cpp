#include "util/one_line.h"

#include <algorithm>
#include <cstdint>

namespace topsim {
namespace {

// The length of the well-formed UTF-8 sequence starting at text[i] (RFC 3629: no overlong
// forms, no surrogates, at most U+10FFFF), or 0.
size_t utf8_length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t b = byte(i);
  size_t n = 0;
  uint8_t low = 0x80, high = 0xbf;  // range of the second byte
  if (b >= 0xc2 && b <= 0xdf) {
    n = 2;
  } else if (b >= 0xe0 && b <= 0xef) {
    n = 3;
    if (b == 0xe0) low = 0xa0;
    if (b == 0xed) high = 0x9f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    n = 4;
    if (b == 0xf0) low = 0x90;
    if (b == 0xf4) high = 0x8f;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) return 0;
  return n;
}

void hex(std::string& out, uint8_t b) {
  static constexpr char kDigits[] = "0123456789abcdef";
  out += "\\x";
  out += kDigits[b >> 4];
  out += kDigits[b & 15];
}

}  // namespace

std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto b = static_cast<uint8_t>(text[i]);
    if (b < 0x80) {
      if (b == '\n')
        out += "\\n";
      else if (b == '\r')
        out += "\\r";
      else if (b == '\t')
        out += "\\t";
      else if (b < 0x20 || b == 0x7f)
        hex(out, b);
      else
        out += static_cast<char>(b);
      ++i;
      continue;
    }
    if (const size_t n = utf8_length(text, i)) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      hex(out, b);
      ++i;
    }
  }
  return out;
}

std::string quoted_value(std::string_view text) {
  std::string out;
  size_t chars = 0, i = 0;
  for (; i < text.size() && chars < kMaxQuotedChars; ++chars) {
    const auto b = static_cast<uint8_t>(text[i]);
    const size_t n = b < 0x80 ? 1 : std::max<size_t>(1, utf8_length(text, i));
    out += one_line(text.substr(i, n));
    i += n;
  }
  if (i < text.size()) out += "\u2026";
  return out;
}

namespace {

// An RFC 6901 reference token as the key was written: "~1" -> '/', "~0" -> '~'.
std::string unescaped_token(std::string_view token) {
  std::string out;
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
      out += token[++i] == '1' ? '/' : '~';
    } else {
      out += token[i];
    }
  }
  return out;
}

}  // namespace

std::string quoted_pointer(std::string_view pointer) {
  std::string out;
  for (size_t start = 0; start <= pointer.size();) {
    const size_t slash = pointer.find('/', start);
    out += quoted_value(
        unescaped_token(pointer.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start)));
    if (slash == std::string_view::npos) break;
    out += '/';
    start = slash + 1;
  }
  return out;
}

std::string cap_quoted(std::string_view message) {
  const auto opens = [&](size_t i) {
    return message[i] == '\'' && (i == 0 || std::string_view(" (=").find(message[i - 1]) != std::string_view::npos);
  };
  const auto closes = [&](size_t i) {
    return message[i] == '\'' &&
           (i + 1 == message.size() || std::string_view(" :,;.)").find(message[i + 1]) != std::string_view::npos);
  };
  std::string out;
  for (size_t i = 0; i < message.size() && out.size() < kMaxMessageChars; ++i) {
    size_t end = i;  // the end of a long quoted value or of a long run without spaces starting at i
    if (opens(i)) {
      end = i + 1;
      while (end < message.size() && !closes(end)) ++end;
      if (end == message.size() || end - i - 1 <= kMaxEchoedChars) end = i;
    }
    if (end > i) {
      out += '\'' + quoted_value(message.substr(i + 1, end - i - 1)) + '\'';
      i = end;
      continue;
    }
    if (message[i] != ' ' && (i == 0 || message[i - 1] == ' ')) {
      end = message.find(' ', i);
      if (end == std::string_view::npos) end = message.size();
      if (end - i > kMaxEchoedChars) {
        out += quoted_value(message.substr(i, end - i));
        i = end - 1;
        continue;
      }
    }
    out += message[i];
  }
  if (out.size() >= kMaxMessageChars) out += "\u2026";
  return out;
}

}  // namespace topsim
