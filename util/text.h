// Small text helpers every layer shares: joining lists for messages and names, and the one
// normalisation of user-typed names (case, '-', '_' and ' ' ignored).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace topsim {

// The non-empty parts of `text` between `separator`s, each trimmed of spaces ("a, b" -> a, b).
std::vector<std::string> split_list(std::string_view text, char separator = ',');

// The parts with `separator` between them ("a, b, c"); "" for none.
std::string join(const std::vector<std::string>& parts, std::string_view separator);

// The first `shown` parts joined as above, then "<separator>and N more" for the rest:
// "a; b; c; and 4 more".
std::string join_first(const std::vector<std::string>& parts, size_t shown, std::string_view separator);

// The same over any range, each item turned into text by `text_of`.
template <class Range, class TextOf>
std::string join(const Range& items, std::string_view separator, TextOf text_of) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += separator;
    out += text_of(item);
    first = false;
  }
  return out;
}

// Names as alternatives: "a", "a or b", "a, b or c"; empty for none.
std::string join_alternatives(const std::vector<std::string>& names);

// A count with its noun, singular for one, thousands separated: "1 node", "82,247 jobs" (plural:
// the singular + "s" unless given).
std::string counted(long long n, std::string_view singular, std::string_view plural = "");

// A name as compared when users type it: lower case, without '-', '_' and ' ' ("DGX-A100" and
// "dgx_a100" are the same name).
std::string normalized_name(std::string_view name);

}  // namespace topsim
