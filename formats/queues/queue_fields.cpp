#include "formats/queues/queue_fields.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iterator>

#include "formats/support/k8s_quantity.h"

namespace topsim::queue_yaml {
namespace {

// A scalar written without quotes (a YAML number, boolean or plain word): Kubernetes reads
// quoted scalars as strings, so "8" in quotes is no integer for an int32 field.
bool plain(const YAML::Node& node) { return node.IsScalar() && node.Tag() == "?"; }

std::string shown(const YAML::Node& node) {
  if (node.IsMap()) return "a map";
  if (node.IsSequence()) return "a list";
  return "'" + node.Scalar() + "'";
}

}  // namespace

int64_t Site::line_of(const YAML::Node& node) const {
  const int mark = node.IsDefined() ? node.Mark().line : -1;
  return first_line + std::max(0, mark);
}

std::string Site::where(const YAML::Node& node) const { return file + ":" + std::to_string(line_of(node)); }

void Site::fail(const YAML::Node& node, const std::string& path, const std::string& what) const {
  throw Fault{where(node) + ": " + object + ": " + (path.empty() ? "" : path + ": ") + what};
}

YAML::Node member(const YAML::Node& map, const char* key) {
  if (!map.IsDefined() || !map.IsMap() || !map[key]) return YAML::Node(YAML::NodeType::Undefined);
  return map[key];
}

bool present(const YAML::Node& node) { return node.IsDefined() && !node.IsNull(); }

void check_map(const Site& site, const YAML::Node& node, const std::string& path, const std::vector<std::string>& known) {
  if (!present(node)) return;
  if (!node.IsMap()) site.fail(node, path, "must be a map, got " + shown(node));
  for (const auto& entry : node) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "?";
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string fields;
    for (const std::string& k : known) fields += (fields.empty() ? "" : ", ") + k;
    site.fail(entry.first, path.empty() ? key : path + "." + key, "unknown field (fields: " + fields + ")");
  }
}

void check_map(const Site& site, const YAML::Node& node, const std::string& path, std::initializer_list<const char*> known) {
  check_map(site, node, path, std::vector<std::string>(known.begin(), known.end()));
}

std::vector<YAML::Node> list_items(const Site& site, const YAML::Node& node, const std::string& path) {
  if (!present(node)) return {};
  if (!node.IsSequence()) site.fail(node, path, "must be a list, got " + shown(node));
  return {node.begin(), node.end()};
}

std::string text(const Site& site, const YAML::Node& node, const std::string& path) {
  if (!present(node)) return "";
  if (!node.IsScalar()) site.fail(node, path, "must be a string, got " + shown(node));
  return node.Scalar();
}

std::string required_text(const Site& site, const YAML::Node& parent, const char* key, const std::string& path) {
  const YAML::Node node = member(parent, key);
  const std::string value = text(site, node, path);
  if (value.empty()) site.fail(present(node) ? node : parent, path, "missing (a name is required)");
  return value;
}

int64_t integer(const Site& site, const YAML::Node& node, const std::string& path, int64_t min, int64_t max) {
  const std::string value = node.IsScalar() ? node.Scalar() : "";
  int64_t parsed = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (!plain(node) || ec != std::errc() || end != value.data() + value.size() || parsed < min || parsed > max)
    site.fail(node, path,
              "must be an integer in " + std::to_string(min) + ".." + std::to_string(max) + " (unquoted), got " + shown(node));
  return parsed;
}

double number(const Site& site, const YAML::Node& node, const std::string& path) {
  const std::string value = node.IsScalar() ? node.Scalar() : "";
  double parsed = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (!plain(node) || ec != std::errc() || end != value.data() + value.size() || !std::isfinite(parsed))
    site.fail(node, path, "must be a number (unquoted), got " + shown(node));
  return parsed;
}

bool boolean(const Site& site, const YAML::Node& node, const std::string& path) {
  const std::string value = node.IsScalar() ? node.Scalar() : "";
  if (!plain(node) || (value != "true" && value != "false")) site.fail(node, path, "must be true or false, got " + shown(node));
  return value == "true";
}

int64_t quantity(const Site& site, const YAML::Node& node, const std::string& path, int scale) {
  if (!node.IsScalar()) site.fail(node, path, "must be a quantity such as 8, \"500m\" or \"1.5Gi\", got " + shown(node));
  auto value = parse_quantity(node.Scalar(), scale);
  if (!value) site.fail(node, path, value.error().message);
  if (*value < 0) site.fail(node, path, "'" + node.Scalar() + "' must not be negative");
  return *value;
}

double quantity_number(const Site& site, const YAML::Node& node, const std::string& path) {
  if (!node.IsScalar()) site.fail(node, path, "must be a quantity such as 1 or \"500m\", got " + shown(node));
  auto value = parse_quantity_number(node.Scalar());
  if (!value) site.fail(node, path, value.error().message);
  if (*value < 0) site.fail(node, path, "'" + node.Scalar() + "' must not be negative");
  return *value;
}

std::string one_of(const Site& site, const YAML::Node& node, const std::string& path, const std::vector<std::string>& allowed) {
  if (!present(node)) return "";
  const std::string value = text(site, node, path);
  if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) return value;
  std::string names;
  for (const std::string& a : allowed) names += (names.empty() ? "" : ", ") + a;
  site.fail(node, path, "'" + value + "' is not one of " + names);
}

// Go's time.ParseDuration, in ms: "0", or one or more <decimal><unit> with unit ns, us, µs, ms,
// s, m or h, an optional sign first; nullopt when `text` is not one.
std::optional<double> go_duration_ms(std::string_view text) {
  double sign = 1;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    if (text.front() == '-') sign = -1;
    text.remove_prefix(1);
  }
  if (text == "0") return 0.0;
  if (text.empty()) return std::nullopt;
  static const std::pair<std::string_view, double> kUnits[] = {{"ns", 1e-6}, {"us", 1e-3}, {"\u00b5s", 1e-3}, {"\u03bcs", 1e-3},
                                                               {"ms", 1},    {"s", 1e3},   {"m", 60e3},       {"h", 3600e3}};
  double total = 0;
  while (!text.empty()) {
    size_t digits = 0;
    for (bool point = false; digits < text.size(); ++digits) {
      if (text[digits] == '.' && !point)
        point = true;
      else if (!std::isdigit(static_cast<unsigned char>(text[digits])))
        break;
    }
    const std::string number(text.substr(0, digits));
    if (number.empty() || number == ".") return std::nullopt;
    text.remove_prefix(digits);
    size_t unit_end = 0;
    while (unit_end < text.size() && !std::isdigit(static_cast<unsigned char>(text[unit_end])) && text[unit_end] != '.')
      ++unit_end;
    const std::string_view unit = text.substr(0, unit_end);
    const auto found = std::find_if(std::begin(kUnits), std::end(kUnits), [&](const auto& u) { return u.first == unit; });
    if (found == std::end(kUnits)) return std::nullopt;
    total += std::strtod(number.c_str(), nullptr) * found->second;  // no throw: a huge figure is inf
    text.remove_prefix(unit_end);
  }
  return sign * total;
}

int64_t duration_ms(const Site& site, const YAML::Node& node, const std::string& path, double max_ms, const char* max_text) {
  const std::string value = text(site, node, path);
  const std::optional<double> ms = go_duration_ms(value);
  if (!ms) site.fail(node, path, "not a duration (Go's form, e.g. \"90s\", \"15m\", \"1h30m\"), got \"" + value + "\"");
  if (*ms < 0) site.fail(node, path, "must not be negative, got \"" + value + "\"");
  if (*ms > max_ms) site.fail(node, path, std::string("at most ") + max_text + ", got \"" + value + "\"");
  return std::llround(*ms);
}

}  // namespace topsim::queue_yaml
