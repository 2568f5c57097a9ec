#include "formats/jobs/kube_yaml.h"

#include <charconv>

namespace topsim {

YAML::Node child(const YAML::Node& node, const char* key) {
  if (!node || !node.IsMap() || !node[key]) return YAML::Node(YAML::NodeType::Undefined);
  return node[key];
}

std::string text_of(const YAML::Node& node, const std::string& field) {
  if (!node || node.IsNull()) return "";
  if (!node.IsScalar()) throw ManifestFault{field + ": must be a string"};
  return node.Scalar();
}

int64_t count_of(const YAML::Node& node, const std::string& field, int64_t fallback) {
  if (!node || node.IsNull()) return fallback;
  int64_t value = -1;
  const std::string text = node.IsScalar() ? node.Scalar() : "";
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (!node.IsScalar() || ec != std::errc() || ptr != text.data() + text.size() || value < 0 || value > 65535)
    throw ManifestFault{field + ": must be an integer in 0..65535, got '" + text + "'"};
  return value;
}

}  // namespace topsim
