#include "util/text.h"

#include <cctype>

namespace topsim {

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  return join(parts, separator, [](const std::string& part) -> const std::string& { return part; });
}

std::string counted(long long n, std::string_view singular, std::string_view plural) {
  const std::string noun = n == 1 ? std::string(singular) : plural.empty() ? std::string(singular) + "s" : std::string(plural);
  return std::to_string(n) + " " + noun;
}

std::string normalized_name(std::string_view name) {
  std::string out;
  for (unsigned char c : name)
    if (c != '-' && c != '_' && c != ' ') out.push_back(static_cast<char>(std::tolower(c)));
  return out;
}

}  // namespace topsim
