#include "util/nesting.h"

namespace topsim {

std::optional<size_t> first_too_deep_bracket(std::string_view text, size_t max_depth, bool single_quotes) {
  size_t depth = 0;
  char quote = 0;  // the quote of the string being read, 0 outside strings
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote == '"') {
      if (c == '\\')
        ++i;
      else if (c == '"')
        quote = 0;
      continue;
    }
    if (quote == '\'') {
      if (c == '\'') quote = 0;  // '' reads as closing then reopening: the same for depth
      continue;
    }
    if (c == '"' || (single_quotes && c == '\'')) {
      quote = c;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

}  // namespace topsim
