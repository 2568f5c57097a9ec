// Text from inputs shown in one-line messages: control bytes and invalid UTF-8 escaped.
#pragma once

#include <string>
#include <string_view>

namespace topsim {

// `text` with every control byte (0x00-0x1f, 0x7f) written as \n, \r, \t or \xNN, and every byte
// that is not part of a well-formed UTF-8 sequence as \xNN. A backslash stays as it is. Valid
// UTF-8 text without control bytes is returned unchanged.
std::string one_line(std::string_view text);

// The most characters of an input value quoted in a message.
inline constexpr size_t kMaxQuotedChars = 80;

// `text` as one_line() shows it, cut after kMaxQuotedChars characters (never inside a UTF-8
// sequence or an escape) and ended with "…" when longer: a 100 KB key is not echoed whole.
std::string quoted_value(std::string_view text);
// `message` with every quoted value ('...', the opening quote after a space, '(', '=' or the
// start, the closing one before the end, a space or punctuation) and every run without spaces
// longer than kMaxEchoedChars cut as quoted_value() cuts it, and the whole cut after
// kMaxMessageChars: the last guard of a one-line error against echoing a 10 MB attribute whole.
// Paths (up to PATH_MAX, 4096 bytes on Linux) stay whole.
inline constexpr size_t kMaxEchoedChars = 4096;
inline constexpr size_t kMaxMessageChars = 16384;
std::string cap_quoted(std::string_view message);
// A JSON pointer ("/workload/<key>") with each of its tokens shown as the key was written (RFC
// 6901 escapes undone: "nvidia.com/gpu", not "nvidia.com~1gpu") and as quoted_value() shows it.
std::string quoted_pointer(std::string_view pointer);

}  // namespace topsim
