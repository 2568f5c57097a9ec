#include "formats/hardware/node_json.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

#include "formats/support/json_reader.h"
#include "util/nesting.h"
#include "util/number_format.h"
#include "util/one_line.h"
#include "util/suggest.h"

namespace topsim {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

enum class Need { Required, Optional };

// The first error of one load. Later failures are dropped, so a reader can carry on with
// defaults after a failure and the caller checks `failed()` once at the end.
class LoadContext {
 public:
  explicit LoadContext(std::string_view source) : source_(source) {}
  void fail(const std::string& pointer, const std::string& what) {
    if (!error_) error_ = Error{source_ + ": " + (pointer.empty() ? "/" : quoted_pointer(pointer)) + ": " + what};
  }
  bool failed() const { return error_.has_value(); }
  const Error& error() const { return *error_; }

 private:
  std::string source_;
  std::optional<Error> error_;
};

// How a found value is shown in an error: scalars as JSON text, containers by kind.
std::string describe(const Json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return text.size() > 40 ? text.substr(0, 37) + "..." : text;
}

// RFC 6901 JSON pointer token.
std::string pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

std::string index_path(const std::string& pointer, size_t index) { return pointer + "/" + std::to_string(index); }

std::optional<int> as_int(LoadContext& ctx, const Json& v, const std::string& pointer) {
  constexpr int64_t kMin = std::numeric_limits<int>::min(), kMax = std::numeric_limits<int>::max();
  const bool fits = v.is_number_unsigned() ? v.get<uint64_t>() <= uint64_t{kMax}
                                           : v.is_number_integer() && v.get<int64_t>() >= kMin && v.get<int64_t>() <= kMax;
  if (!fits) ctx.fail(pointer, "must be an integer, got " + describe(v));
  return fits ? std::optional(v.get<int>()) : std::nullopt;
}

// An index into a list of `size` items; `what` names it in errors ("a bridge index").
int as_index(LoadContext& ctx, const Json& v, const std::string& pointer, size_t size, const std::string& what) {
  const auto value = as_int(ctx, v, pointer);
  if (value && (*value < 0 || static_cast<size_t>(*value) >= size))
    ctx.fail(pointer, size == 0 ? "must be " + what + ", but that list is empty"
                                : "must be " + what + " (0-" + std::to_string(size - 1) + "), got " + std::to_string(*value));
  return value.value_or(0);
}

// Typed access to the keys of the JSON object at `pointer`; unknown keys are errors.
class ObjectReader {
 public:
  ObjectReader(LoadContext& ctx, const Json& value, std::string pointer, const std::vector<std::string>& keys)
      : ctx_(ctx), pointer_(std::move(pointer)) {
    if (!value.is_object()) {
      ctx_.fail(pointer_, "must be an object, got " + describe(value));
      return;
    }
    object_ = &value;
    for (auto it = value.begin(); it != value.end(); ++it)
      if (std::find(keys.begin(), keys.end(), it.key()) == keys.end())
        ctx_.fail(path(it.key()), "unknown key (allowed: " + join_names(keys) + ")" + did_you_mean(it.key(), keys));
  }

  std::string path(std::string_view key) const { return pointer_ + "/" + pointer_token(key); }
  bool has(std::string_view key) const { return object_ && object_->contains(std::string(key)); }
  void fail(std::string_view key, const std::string& what) { ctx_.fail(path(key), what); }
  void check(std::string_view key, bool ok, const std::string& what) {
    if (!ok) fail(key, what);
  }

  std::optional<std::string> string(std::string_view key, Need need) {
    const Json* v = find(key, need);
    if (v && !v->is_string()) fail(key, "must be a string, got " + describe(*v));
    return v && v->is_string() ? std::optional(v->get<std::string>()) : std::nullopt;
  }
  std::optional<int> integer(std::string_view key, Need need) {
    const Json* v = find(key, need);
    return v ? as_int(ctx_, *v, path(key)) : std::nullopt;
  }
  std::optional<double> number(std::string_view key, Need need) {
    const Json* v = find(key, need);
    if (v && !v->is_number()) fail(key, "must be a number, got " + describe(*v));
    return v && v->is_number() ? std::optional(v->get<double>()) : std::nullopt;
  }
  const Json* array(std::string_view key, Need need) {
    const Json* v = find(key, need);
    if (v && !v->is_array()) fail(key, "must be an array, got " + describe(*v));
    return v && v->is_array() ? v : nullptr;
  }
  // A required index into a list of `size` items; `what` names it ("a bridge index").
  int index(std::string_view key, size_t size, const std::string& what) {
    const Json* v = find(key, Need::Required);
    return v ? as_index(ctx_, *v, path(key), size, what) : 0;
  }
  int positive(std::string_view key, Need need, int fallback) {
    const int value = integer(key, need).value_or(fallback);
    check(key, value >= 1, "must be a positive integer, got " + std::to_string(value));
    return value;
  }
  // One of the names of E (util/enum_names.h), e.g. a bridge kind; nullopt when absent or not one of them.
  template <class E>
  std::optional<E> choice(std::string_view key) {
    const std::string value = string(key, Need::Required).value_or("");
    if (const std::optional<E> parsed = parse_enum<E>(value)) return parsed;
    const std::vector<std::string> names = enum_name_list<E>();
    if (has(key)) fail(key, "must be one of " + join_names(names) + ", got \"" + value + "\"" + did_you_mean(value, names));
    return std::nullopt;
  }

 private:
  const Json* find(std::string_view key, Need need) {
    if (!object_) return nullptr;
    const auto it = object_->find(std::string(key));
    if (it != object_->end()) return &*it;
    if (need == Need::Required) fail(key, "missing required key");
    return nullptr;
  }

  LoadContext& ctx_;
  std::string pointer_;
  const Json* object_ = nullptr;
};

// Calls `read(element, pointer)` for each element of an optional array.
template <class Read>
void for_each_element(const Json* list, const std::string& pointer, Read read) {
  if (!list) return;
  for (size_t i = 0; i < list->size(); ++i) read((*list)[i], index_path(pointer, i));
}

void read_numa_nodes(LoadContext& ctx, const Json* list, const std::string& pointer, NodeModel& model) {
  for_each_element(list, pointer, [&](const Json& element, const std::string& at) {
    ObjectReader r(ctx, element, at, {"id", "cpu", "cpu_affinity"});
    NumaNode numa;
    numa.id = r.integer("id", Need::Required).value_or(0);
    r.check("id", numa.id >= 0, "must be a non-negative integer, got " + std::to_string(numa.id));
    for (const NumaNode& other : model.numa_nodes)
      r.check("id", !r.has("id") || other.id != numa.id, "NUMA id " + std::to_string(numa.id) + " is listed twice");
    numa.cpu = r.choice<CpuKind>("cpu").value_or(CpuKind::IntelSkylake);
    numa.cpu_affinity = r.string("cpu_affinity", Need::Optional).value_or("");
    model.numa_nodes.push_back(numa);
  });
}

void read_bridges(LoadContext& ctx, const Json* list, const std::string& pointer, NodeModel& model) {
  for_each_element(list, pointer, [&](const Json& element, const std::string& at) {
    ObjectReader r(ctx, element, at, {"kind", "numa", "parent", "pcie_gen", "pcie_width"});
    PcieBridge bridge;
    bridge.kind = r.choice<BridgeKind>("kind").value_or(BridgeKind::HostBridge);
    const bool host = bridge.kind == BridgeKind::HostBridge;
    if (host) {
      r.check("parent", !r.has("parent"), "a host bridge has no parent; it hangs off the NUMA node given by \"numa\"");
      bridge.numa = r.index("numa", model.numa_nodes.size(), "a numa_nodes index");
    } else {
      r.check("numa", !r.has("numa"), "a switch takes its NUMA node from its parent; remove \"numa\"");
      bridge.parent = r.index("parent", model.bridges.size(), "the index of an earlier bridge");
      if (bridge.parent >= 0 && static_cast<size_t>(bridge.parent) < model.bridges.size())
        bridge.numa = model.bridges[bridge.parent].numa;
    }
    bridge.pcie_gen = r.integer("pcie_gen", Need::Required).value_or(3);
    bridge.pcie_width = r.integer("pcie_width", Need::Optional).value_or(16);
    model.bridges.push_back(bridge);
  });
}

// Reads one "gpus" entry and appends `count` copies of it.
void read_gpu_entry(ObjectReader& r, NodeModel& model) {
  Gpu gpu;
  const std::string name = r.string("model", Need::Required).value_or("");
  const GpuModel* spec = find_gpu_model(name);
  if (r.has("model") && !spec)
    r.fail("model", "unknown GPU model \"" + name + "\"" + did_you_mean(name, gpu_model_names()) +
                        " (known models: " + join_names(gpu_model_names()) + ")");
  const GpuModel fallback;
  if (!spec) spec = &fallback;
  gpu.model = spec->name;
  gpu.bridge = r.index("bridge", model.bridges.size(), "a bridge index");
  const int count = r.positive("count", Need::Optional, 1);
  r.check("count", count <= static_cast<int>(kMaxGpusPerNode),
          "must be at most " + std::to_string(kMaxGpusPerNode) + " (GPUs per node), got " + std::to_string(count));
  gpu.nvswitch_links = r.integer("nvswitch_links", Need::Optional).value_or(0);
  r.check("nvswitch_links", gpu.nvswitch_links >= 0, "must be a non-negative integer, got " + std::to_string(gpu.nvswitch_links));
  gpu.memory_gib = r.number("memory_gib", Need::Optional).value_or(spec->memory_gib);
  r.check("memory_gib", gpu.memory_gib > 0, "must be a positive number of GiB");
  gpu.sm = r.integer("sm", Need::Optional).value_or(spec->sm);
  gpu.pcie_gen = r.integer("pcie_gen", Need::Optional).value_or(spec->pcie_gen);
  gpu.pcie_width = r.integer("pcie_width", Need::Optional).value_or(spec->pcie_width);
  gpu.bus_id = r.string("bus_id", Need::Optional).value_or("");
  r.check("bus_id", gpu.bus_id.empty() || count == 1, "cannot be combined with \"count\" above 1 (bus ids are unique)");
  for (int copy = 0; copy < std::clamp(count, 0, static_cast<int>(kMaxGpusPerNode)); ++copy) model.gpus.push_back(gpu);
}

void read_gpus(LoadContext& ctx, const Json* list, const std::string& pointer, NodeModel& model) {
  for_each_element(list, pointer, [&](const Json& element, const std::string& at) {
    ObjectReader r(ctx, element, at,
                   {"model", "bridge", "count", "nvswitch_links", "memory_gib", "sm", "pcie_gen", "pcie_width", "bus_id"});
    read_gpu_entry(r, model);
  });
}

void read_nics(LoadContext& ctx, const Json* list, const std::string& pointer, NodeModel& model) {
  for_each_element(list, pointer, [&](const Json& element, const std::string& at) {
    ObjectReader r(ctx, element, at, {"name", "speed_gbit", "transport", "bridge", "pcie_gen", "pcie_width", "bus_id"});
    Nic nic;
    nic.name = r.string("name", Need::Required).value_or("");
    r.check("name", !r.has("name") || !nic.name.empty(), "must be a NIC name such as \"mlx5_0\", got \"\"");
    nic.speed_gbit = r.number("speed_gbit", Need::Required).value_or(100);
    r.check("speed_gbit", nic.speed_gbit > 0, "must be a positive speed in Gb/s, got " + describe(Json(nic.speed_gbit)));
    nic.transport = r.choice<NicTransport>("transport").value_or(NicTransport::InfiniBand);
    nic.bridge = r.index("bridge", model.bridges.size(), "a bridge index");
    nic.pcie_gen = r.integer("pcie_gen", Need::Required).value_or(3);
    nic.pcie_width = r.integer("pcie_width", Need::Optional).value_or(16);
    nic.bus_id = r.string("bus_id", Need::Optional).value_or("");
    model.nics.push_back(nic);
  });
}

void read_nvlinks(LoadContext& ctx, const Json* list, const std::string& pointer, NodeModel& model) {
  for_each_element(list, pointer, [&](const Json& element, const std::string& at) {
    ObjectReader r(ctx, element, at, {"gpus", "count"});
    NvLinkBond bond;
    const Json* ends = r.array("gpus", Need::Required);
    if (ends && ends->size() != 2) r.fail("gpus", "must list exactly 2 GPU indices, got " + std::to_string(ends->size()));
    if (ends && ends->size() == 2) {
      bond.gpu_a = as_index(ctx, (*ends)[0], index_path(r.path("gpus"), 0), model.gpus.size(), "a GPU index");
      bond.gpu_b = as_index(ctx, (*ends)[1], index_path(r.path("gpus"), 1), model.gpus.size(), "a GPU index");
    }
    bond.count = r.positive("count", Need::Required, 1);
    model.nvlinks.push_back(bond);
  });
}

NodeModel read_node(LoadContext& ctx, const Json& root) {
  ObjectReader r(ctx, root, "", {"name", "description", "host_memory_gib", "numa_nodes", "bridges", "gpus", "nics", "nvlinks"});
  NodeModel model;
  model.name = r.string("name", Need::Required).value_or("");
  model.description = r.string("description", Need::Optional).value_or("");
  model.host_memory_gib = r.number("host_memory_gib", Need::Optional).value_or(0);
  r.check("host_memory_gib",
          !r.has("host_memory_gib") || (model.host_memory_gib > 0 && model.host_memory_gib <= kMaxHostMemoryGib),
          "must be a positive number of GiB, at most " + format_number(kMaxHostMemoryGib) + " (omit it when not known)");
  read_numa_nodes(ctx, r.array("numa_nodes", Need::Required), r.path("numa_nodes"), model);
  read_bridges(ctx, r.array("bridges", Need::Required), r.path("bridges"), model);
  read_gpus(ctx, r.array("gpus", Need::Required), r.path("gpus"), model);
  read_nics(ctx, r.array("nics", Need::Optional), r.path("nics"), model);
  read_nvlinks(ctx, r.array("nvlinks", Need::Optional), r.path("nvlinks"), model);
  return model;
}

// 1-based line and column of the byte at `offset` (0-based).
std::pair<size_t, size_t> line_column(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  const std::string_view before = text.substr(0, offset);
  const size_t line = 1 + static_cast<size_t>(std::count(before.begin(), before.end(), '\n'));
  const size_t line_start = before.rfind('\n');
  return {line, line_start == std::string_view::npos ? offset + 1 : offset - line_start};
}

// nlohmann's what() without its "[json.exception...] parse error at line L, column C: " prefix.
std::string parse_error_reason(const std::string& what) {
  const size_t at = what.find("parse error");
  const size_t colon = at == std::string::npos ? std::string::npos : what.find(": ", at);
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

Status parse_json(std::string_view text, std::string_view source, Json& out) {
  if (const auto deep = first_too_deep_bracket(text)) {
    const auto [line, column] = line_column(text, *deep);
    return Error{std::string(source) + ":" + std::to_string(line) + ":" + std::to_string(column) +
                 ": invalid JSON: nested more than " + std::to_string(kMaxNestingDepth) + " levels deep"};
  }
  try {
    out = Json::parse(text.begin(), text.end());
    return {};
  } catch (const Json::parse_error& e) {
    // e.byte counts the bytes read, the offending one included.
    const auto [line, column] = line_column(text, e.byte == 0 ? 0 : e.byte - 1);
    return Error{std::string(source) + ":" + std::to_string(line) + ":" + std::to_string(column) +
                 ": invalid JSON: " + parse_error_reason(e.what())};
  }
}

}  // namespace

Expected<NodeModel> node_from_json(std::string_view text, std::string_view source) {
  try {
    Json root;
    if (Status s = parse_json(text, source, root); !s) return s.error();
    LoadContext ctx(source);
    NodeModel model = read_node(ctx, root);
    if (ctx.failed()) return ctx.error();
    if (Status s = validate(model); !s) return Error{std::string(source) + ": " + s.error().message};
    return model;
  } catch (const Json::exception& e) {  // not expected: every access above is type-checked
    return Error{std::string(source) + ": cannot read node JSON: " + json_exception_text(e)};
  }
}

// ---- writing

namespace {

// Integral values print without a fraction ("100", not "100.0"); others round-trip exactly.
OrderedJson number_value(double x) {
  if (std::floor(x) == x && std::fabs(x) < 1e15) return static_cast<int64_t>(x);
  return x;
}

// One line: {"a": 1, "b": [0, 3]}.
std::string inline_json(const OrderedJson& value) {
  if (!value.is_object() && !value.is_array()) return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out = value.is_object() ? "{" : "[";
  bool first = true;
  for (auto it = value.begin(); it != value.end(); ++it) {
    out += first ? "" : ", ";
    first = false;
    if (value.is_object()) out += OrderedJson(it.key()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + ": ";
    out += inline_json(it.value());
  }
  return out + (value.is_object() ? "}" : "]");
}

OrderedJson numa_json(const NumaNode& numa) {
  OrderedJson j = {{"id", numa.id}, {"cpu", std::string(enum_name(numa.cpu))}};
  if (!numa.cpu_affinity.empty()) j["cpu_affinity"] = numa.cpu_affinity;
  return j;
}

OrderedJson bridge_json(const PcieBridge& bridge) {
  OrderedJson j = {{"kind", std::string(enum_name(bridge.kind))}};
  if (bridge.kind == BridgeKind::HostBridge)
    j["numa"] = bridge.numa;
  else
    j["parent"] = bridge.parent;
  j["pcie_gen"] = bridge.pcie_gen;
  if (bridge.pcie_width != 16) j["pcie_width"] = bridge.pcie_width;
  return j;
}

OrderedJson gpu_json(const Gpu& gpu, int count) {
  const GpuModel* spec = find_gpu_model(gpu.model);
  const GpuModel fallback;
  if (!spec) spec = &fallback;
  OrderedJson j = {{"model", gpu.model}, {"bridge", gpu.bridge}};
  if (count != 1) j["count"] = count;
  if (gpu.nvswitch_links != 0) j["nvswitch_links"] = gpu.nvswitch_links;
  if (gpu.memory_gib != spec->memory_gib) j["memory_gib"] = number_value(gpu.memory_gib);
  if (gpu.sm != spec->sm) j["sm"] = gpu.sm;
  if (gpu.pcie_gen != spec->pcie_gen) j["pcie_gen"] = gpu.pcie_gen;
  if (gpu.pcie_width != spec->pcie_width) j["pcie_width"] = gpu.pcie_width;
  if (!gpu.bus_id.empty()) j["bus_id"] = gpu.bus_id;
  return j;
}

bool same_gpu(const Gpu& a, const Gpu& b) {
  return a.model == b.model && a.sm == b.sm && a.memory_gib == b.memory_gib && a.bridge == b.bridge && a.pcie_gen == b.pcie_gen &&
         a.pcie_width == b.pcie_width && a.nvswitch_links == b.nvswitch_links && a.bus_id.empty() && b.bus_id.empty();
}

std::vector<OrderedJson> gpu_entries(const std::vector<Gpu>& gpus) {
  std::vector<OrderedJson> out;
  for (size_t i = 0; i < gpus.size();) {
    size_t run = 1;
    while (i + run < gpus.size() && same_gpu(gpus[i], gpus[i + run])) ++run;
    out.push_back(gpu_json(gpus[i], static_cast<int>(run)));
    i += run;
  }
  return out;
}

OrderedJson nic_json(const Nic& nic) {
  OrderedJson j = {{"name", nic.name},
                   {"speed_gbit", number_value(nic.speed_gbit)},
                   {"transport", std::string(enum_name(nic.transport))},
                   {"bridge", nic.bridge},
                   {"pcie_gen", nic.pcie_gen}};
  if (nic.pcie_width != 16) j["pcie_width"] = nic.pcie_width;
  if (!nic.bus_id.empty()) j["bus_id"] = nic.bus_id;
  return j;
}

std::string list_json(const std::vector<OrderedJson>& entries) {
  if (entries.empty()) return "[]";
  std::string out = "[\n";
  for (size_t i = 0; i < entries.size(); ++i) out += "    " + inline_json(entries[i]) + (i + 1 < entries.size() ? ",\n" : "\n");
  return out + "  ]";
}

template <class T, class ToJson>
std::vector<OrderedJson> map_entries(const std::vector<T>& items, ToJson to_json) {
  std::vector<OrderedJson> out;
  for (const T& item : items) out.push_back(to_json(item));
  return out;
}

}  // namespace

std::string node_to_json(const NodeModel& model) {
  const auto nvlink_json = [](const NvLinkBond& l) { return OrderedJson{{"gpus", {l.gpu_a, l.gpu_b}}, {"count", l.count}}; };
  std::string out = "{\n";
  out += "  \"name\": " + OrderedJson(model.name).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + ",\n";
  out += "  \"description\": " + OrderedJson(model.description).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
         ",\n";
  if (model.host_memory_gib > 0) out += "  \"host_memory_gib\": " + format_data(model.host_memory_gib, "0") + ",\n";
  out += "  \"numa_nodes\": " + list_json(map_entries(model.numa_nodes, numa_json)) + ",\n";
  out += "  \"bridges\": " + list_json(map_entries(model.bridges, bridge_json)) + ",\n";
  out += "  \"gpus\": " + list_json(gpu_entries(model.gpus)) + ",\n";
  out += "  \"nics\": " + list_json(map_entries(model.nics, nic_json)) + ",\n";
  out += "  \"nvlinks\": " + list_json(map_entries(model.nvlinks, nvlink_json)) + "\n";
  return out + "}\n";
}

}  // namespace topsim
