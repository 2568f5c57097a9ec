// Strict reading of the fields of one Kubernetes object in a queue configuration: every key is
// known, every value has its type, and a problem is one line naming the file and line, the object
// and the field path ("q/cq.yaml:14: ClusterQueue team-a: spec.resourceGroups[0].flavors[0].
// resources[1].nominalQuota: ..."). Internal to formats/queues/ (it exposes yaml-cpp).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/enum_names.h"

namespace topsim::queue_yaml {

// A problem with one object; thrown by the readers, caught per document (formats/queues/).
struct Fault {
  std::string message;  // the whole line: "file:line: Kind name: path: what"
};

// Where an object was read: its file, the line its document starts on, and its label.
struct Site {
  std::string file;
  int64_t first_line = 1;
  std::string object;  // "ClusterQueue team-a"

  int64_t line_of(const YAML::Node& node) const;
  std::string where(const YAML::Node& node) const;  // "file:line"
  // Throws a Fault at `node` (or the object when `node` carries no position).
  [[noreturn]] void fail(const YAML::Node& node, const std::string& path, const std::string& what) const;
};

// `map[key]`, or an undefined node when absent or when `map` is no map.
YAML::Node member(const YAML::Node& map, const char* key);
bool present(const YAML::Node& node);  // defined and not null

// A map (absent or null: empty). Fails on a scalar or a list, and on a key not in `known`
// ("unknown field; fields: a, b, c").
void check_map(const Site& site, const YAML::Node& node, const std::string& path, std::initializer_list<const char*> known);
void check_map(const Site& site, const YAML::Node& node, const std::string& path, const std::vector<std::string>& known);
// The items of a list (absent or null: none); fails on anything else.
std::vector<YAML::Node> list_items(const Site& site, const YAML::Node& node, const std::string& path);

// Typed scalars. `path` names the field in messages.
std::string text(const Site& site, const YAML::Node& node, const std::string& path);  // absent: ""
std::string required_text(const Site& site, const YAML::Node& parent, const char* key, const std::string& path);
int64_t integer(const Site& site, const YAML::Node& node, const std::string& path, int64_t min, int64_t max);
double number(const Site& site, const YAML::Node& node, const std::string& path);
bool boolean(const Site& site, const YAML::Node& node, const std::string& path);
// A Kubernetes quantity in `scale` units (formats/support/k8s_quantity.h), a YAML number or string;
// negative values fail ("must not be negative").
int64_t quantity(const Site& site, const YAML::Node& node, const std::string& path, int scale);
// A non-negative quantity as a number (Kueue's fairSharing.weight).
double quantity_number(const Site& site, const YAML::Node& node, const std::string& path);

// Go's time.ParseDuration text in ms: "0", or one or more <decimal><unit> (ns, us, µs, ms, s, m,
// h), a sign first; nullopt when `text` is not one.
std::optional<double> go_duration_ms(std::string_view text);
// A metav1.Duration field (Go's duration text) in ms: fails when it is not one, is negative, or
// is above `max_ms` (`max_text` says it: "10000h").
int64_t duration_ms(const Site& site, const YAML::Node& node, const std::string& path, double max_ms, const char* max_text);

// The value of `node` when it is one of `allowed` ("" when absent); fails naming the allowed values.
std::string one_of(const Site& site, const YAML::Node& node, const std::string& path, const std::vector<std::string>& allowed);

// An enum by its name (util/enum_names.h), or one of `aliases` (older names); absent: `fallback`.
template <class E>
E choice(const Site& site, const YAML::Node& node, const std::string& path, E fallback,
         std::initializer_list<std::pair<const char*, E>> aliases = {}) {
  if (!present(node)) return fallback;
  std::vector<std::string> allowed = enum_name_list<E>();
  for (const auto& [name, value] : aliases) allowed.emplace_back(name);
  const std::string value = one_of(site, node, path, allowed);
  for (const auto& [name, e] : aliases)
    if (value == name) return e;
  return *parse_enum<E>(value);
}

}  // namespace topsim::queue_yaml
