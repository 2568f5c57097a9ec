// The cluster network's "measured" links (core/measured_links.h): node pairs, or a matrix.
//   pairs:  [{"a": "gpu-a", "b": "gpu-b", "bus_gbps": 41.5, "latency_us": 3}, ...]
//   matrix: {"nodes": ["gpu-a", "gpu-b", ...], "bus_gbps": [[null, 41.5, ...], ...],
//            "latency_us": [[...]]}
// A pair gives bus_gbps (> 0), latency_us (>= 0) or both. In a matrix, row i column j is the
// pair (nodes[i], nodes[j]); the diagonal is ignored and null means not measured; a pair given
// both ways keeps the lower bandwidth and the higher latency. Node names are checked against
// the cluster when it is built (sim/cluster.cpp).
#include <algorithm>
#include <map>

#include "scenario/scenario_sections.h"

namespace topsim {
namespace {

using Pair = NetworkSpec::MeasuredPair;

void read_pairs(JsonErrors& errors, const JsonAt& at, NetworkSpec& net) {
  if (at.value->empty())
    return errors.fail(at.pointer, "must list node pairs ({\"a\", \"b\", \"bus_gbps\", \"latency_us\"}) or be a matrix");
  for (size_t i = 0; i < at.value->size() && !errors.failed(); ++i) {
    JsonObject o(errors, at.element(i), {"a", "b", "bus_gbps", "latency_us"});
    if (!o.is_object() || !o.require("a") || !o.require("b")) return;
    if (!o.has("bus_gbps") && !o.has("latency_us")) return o.fail("bus_gbps", "give bus_gbps, latency_us or both");
    Pair p;
    if (auto a = o.string("a")) p.a = *a;
    if (auto b = o.string("b")) p.b = *b;
    if (auto gbps = o.positive_number("bus_gbps")) p.bus_gbps = *gbps;
    if (auto us = o.number("latency_us", 0, 1e6)) p.latency_us = *us;
    p.at = o.at().pointer;
    p.a_at = o.pointer("a");
    p.b_at = o.pointer("b");
    net.measured.push_back(std::move(p));
  }
}

// One matrix of `count` x `count` numbers in [min, max] (min excluded when `positive`), or null.
// Calls `cell(i, j, value)` for every number off the diagonal.
template <class Cell>
void read_matrix(JsonErrors& errors, const JsonAt& at, size_t count, double min, bool positive, Cell cell) {
  if (!at.value->is_array() || at.value->size() != count)
    return errors.fail(at.pointer,
                       "must be an array of " + std::to_string(count) + " rows (one per node), got " + describe_json(*at.value));
  for (size_t i = 0; i < count && !errors.failed(); ++i) {
    const JsonAt row = at.element(i);
    if (!row.value->is_array() || row.value->size() != count)
      return errors.fail(row.pointer, "must be a row of " + std::to_string(count) + " values (a number or null per node)");
    for (size_t j = 0; j < count && !errors.failed(); ++j) {
      const JsonAt value = row.element(j);
      if (i == j || value.value->is_null()) continue;
      const auto number = json_number(errors, value, min, 1e6);
      if (!number) return;
      if (positive && !(*number > 0)) return errors.fail(value.pointer, "must be a positive number or null, got 0");
      cell(i, j, *number);
    }
  }
}

void read_named_matrix(JsonErrors& errors, const JsonAt& at, NetworkSpec& net) {
  JsonObject o(errors, at, {"nodes", "bus_gbps", "latency_us"});
  if (!o.is_object() || !o.require("nodes")) return;
  if (!o.has("bus_gbps") && !o.has("latency_us"))
    return o.fail("bus_gbps", "give a bus_gbps matrix, a latency_us matrix or both");
  const JsonAt nodes = *o.member("nodes");
  if (!nodes.value->is_array() || nodes.value->size() < 2) return errors.fail(nodes.pointer, "must list at least two node names");
  std::vector<std::string> names;
  for (size_t i = 0; i < nodes.value->size(); ++i) {
    auto name = json_string(errors, nodes.element(i));
    if (!name) return;
    if (std::find(names.begin(), names.end(), *name) != names.end())
      return errors.fail(nodes.element(i).pointer, "'" + *name + "' is listed twice");
    names.push_back(std::move(*name));
  }
  std::map<std::pair<size_t, size_t>, Pair> pairs;  // (lower index, higher index)
  auto pair_at = [&](size_t i, size_t j, const std::string& pointer) -> Pair& {
    Pair& p = pairs[std::minmax(i, j)];
    if (p.a.empty()) {
      p = {names[std::min(i, j)],
           names[std::max(i, j)],
           0,
           0,
           pointer,
           nodes.pointer + "/" + std::to_string(std::min(i, j)),
           nodes.pointer + "/" + std::to_string(std::max(i, j))};
    }
    return p;
  };
  if (auto bus = o.member("bus_gbps"))
    read_matrix(errors, *bus, names.size(), 0, true, [&](size_t i, size_t j, double gbps) {
      Pair& p = pair_at(i, j, bus->pointer);
      p.bus_gbps = p.bus_gbps > 0 ? std::min(p.bus_gbps, gbps) : gbps;
    });
  if (auto latency = o.member("latency_us"))
    read_matrix(errors, *latency, names.size(), 0, false, [&](size_t i, size_t j, double us) {
      Pair& p = pair_at(i, j, latency->pointer);
      p.latency_us = std::max(p.latency_us, us);
    });
  for (auto& [unused, p] : pairs) net.measured.push_back(std::move(p));
}

}  // namespace

void read_measured(JsonErrors& errors, const JsonAt& at, NetworkSpec& net) {
  if (at.value->is_array()) return read_pairs(errors, at, net);
  if (at.value->is_object()) return read_named_matrix(errors, at, net);
  errors.fail(at.pointer, "must be an array of node pairs or a {\"nodes\", \"bus_gbps\", \"latency_us\"} matrix, got " +
                              describe_json(*at.value));
}

}  // namespace topsim
