#include "util/text.h"

#include <cctype>

#include "util/number_format.h"

namespace topsim {

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  return join(parts, separator, [](const std::string& part) -> const std::string& { return part; });
}

std::string join_first(const std::vector<std::string>& parts, size_t shown, std::string_view separator) {
  if (parts.size() <= shown) return join(parts, separator);
  return join(std::vector<std::string>(parts.begin(), parts.begin() + static_cast<std::ptrdiff_t>(shown)), separator) +
         std::string(separator) + "and " + std::to_string(parts.size() - shown) + " more";
}

std::string join_alternatives(const std::vector<std::string>& names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return text;
}

std::string counted(long long n, std::string_view singular, std::string_view plural) {
  const std::string noun = n == 1 ? std::string(singular) : plural.empty() ? std::string(singular) + "s" : std::string(plural);
  return format_count(n) + " " + noun;
}

std::string normalized_name(std::string_view name) {
  std::string out;
  for (unsigned char c : name)
    if (c != '-' && c != '_' && c != ' ') out.push_back(static_cast<char>(std::tolower(c)));
  return out;
}

std::vector<std::string> split_list(std::string_view text, char separator) {
  std::vector<std::string> parts;
  size_t from = 0;
  while (from <= text.size()) {
    size_t to = text.find(separator, from);
    if (to == std::string_view::npos) to = text.size();
    std::string_view part = text.substr(from, to - from);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (!part.empty()) parts.emplace_back(part);
    from = to + 1;
  }
  return parts;
}

}  // namespace topsim
