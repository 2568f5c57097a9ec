// Text from inputs shown in one-line messages: control bytes and invalid UTF-8 escaped.
#pragma once

#include <string>
#include <string_view>

namespace topsim {

// `text` with every control byte (0x00-0x1f, 0x7f) written as \n, \r, \t or \xNN, and every byte
// that is not part of a well-formed UTF-8 sequence as \xNN. A backslash stays as it is. Valid
// UTF-8 text without control bytes is returned unchanged.
std::string one_line(std::string_view text);

}  // namespace topsim
