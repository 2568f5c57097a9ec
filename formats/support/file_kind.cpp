#include "formats/support/file_kind.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>
#include <vector>

#include "formats/jobs/imported_jobs.h"
#include "formats/support/yaml_reader.h"
#include "sim/results.h"
#include "util/input_file.h"

namespace topsim {
namespace {

using Json = nlohmann::json;

// Kinds of the queue objects formats/queues reads or skips (queue_yaml.cpp's tables); any other
// Kubernetes kind counts as a workload manifest.
const std::set<std::string, std::less<>> kQueueKinds = {
    "ClusterQueue",  "Cohort",           "ResourceFlavor",   "LocalQueue",     "WorkloadPriorityClass",
    "Queue",         "Configuration",    "Topology",         "AdmissionCheck", "ProvisioningRequestConfig",
    "PriorityClass", "MultiKueueConfig", "MultiKueueCluster"};

// Top-level keys only a plan has (plan/plan_loader.cpp's kPlanKeys less those it shares with a
// scenario).
const std::vector<std::string_view> kPlanOnlyKeys = {"growth", "node_types", "mixes",       "mix_grid",
                                                     "slo",    "bounds",     "quota_search"};

std::string_view first_line(std::string_view text) {
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && line[first] != '#') return line;
    start = end + 1;
  }
  return {};
}

bool has_line_starting(std::string_view text, std::string_view prefix) {
  for (size_t at = text.find(prefix); at != std::string_view::npos; at = text.find(prefix, at + 1))
    if (at == 0 || text[at - 1] == '\n') return true;
  return false;
}

// A kind as Kubernetes spells one (an upper-camel-case word): shown to the user, so nothing else.
bool kind_name(const Json& kind) {
  if (!kind.is_string()) return false;
  const std::string& name = kind.get_ref<const std::string&>();
  return !name.empty() && name.size() <= 63 && std::isalpha(static_cast<unsigned char>(name[0])) &&
         std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c); });
}

// The Kubernetes kinds of an object and, for a List, of its items ("Node", "Job", ...).
void add_kinds(const Json& object, std::vector<std::string>& kinds) {
  if (!object.is_object()) return;
  const auto kind = object.find("kind");
  if (kind == object.end() || !kind_name(*kind)) return;
  const auto items = object.find("items");
  if (items != object.end() && items->is_array()) {
    for (const Json& item : *items) add_kinds(item, kinds);
    return;
  }
  kinds.push_back(kind->get<std::string>());
}

FileKindFound from_kube_kinds(const std::vector<std::string>& kinds) {
  bool nodes = true, queues = true;
  std::vector<std::string> distinct;
  for (const std::string& k : kinds) {
    nodes = nodes && k == "Node";
    queues = queues && kQueueKinds.count(k) > 0;
    if (std::find(distinct.begin(), distinct.end(), k) == distinct.end() && distinct.size() < 4) distinct.push_back(k);
  }
  std::string detail;
  for (const std::string& k : distinct) detail += (detail.empty() ? "" : ", ") + k;
  if (!kinds.empty() && nodes) return {FileKind::KubeNodes, ""};
  if (!kinds.empty() && queues) return {FileKind::QueueObjects, detail};
  return {FileKind::KubeManifests, detail};
}

std::optional<FileKindFound> json_kind(const std::string& text) {
  const Json document = Json::parse(text, nullptr, false);
  if (document.is_discarded() || !document.is_object()) return std::nullopt;
  // kubectl writes apiVersion; hand-made node lists often leave it out. A job list's kind is "jobs".
  const auto kube_kind = document.find("kind");
  if (kube_kind != document.end() && kind_name(*kube_kind) &&
      (document.contains("apiVersion") || *kube_kind == "List" || *kube_kind == "NodeList" || *kube_kind == "Node")) {
    std::vector<std::string> kinds;
    add_kinds(document, kinds);
    return from_kube_kinds(kinds);
  }
  if (kube_kind != document.end() && *kube_kind == "jobs" && document.contains("jobs"))
    return FileKindFound{FileKind::JobList, ""};
  if (document.value("schema", Json()) == Json(std::string(kResultsSchema))) return FileKindFound{FileKind::Results, ""};
  for (std::string_view key : kPlanOnlyKeys)
    if (document.contains(key)) return FileKindFound{FileKind::Plan, ""};
  if (document.contains("cluster") && document.contains("workload")) return FileKindFound{FileKind::Scenario, ""};
  if (document.contains("nodes") && document["nodes"].is_array() && !document.contains("workload"))
    return FileKindFound{FileKind::Cluster, ""};
  if (document.contains("scenarios") && document["scenarios"].is_array()) return FileKindFound{FileKind::QualitySuite, ""};
  if (document.contains("gpus") && (document.contains("numa_nodes") || document.contains("bridges")))
    return FileKindFound{FileKind::NodeModel, ""};
  return std::nullopt;
}

std::optional<FileKindFound> yaml_kind(const std::string& text, const std::string& path) {
  if (!has_line_starting(text, "kind:") && !has_line_starting(text, "apiVersion:")) return std::nullopt;
  std::vector<std::string> kinds;
  if (auto documents = parse_yaml_stream(text, path))
    for (const YamlDocument& d : *documents)
      if (d.root && d.root.IsMap()) add_kinds(yaml_to_json(d.root), kinds);
  return from_kube_kinds(kinds);  // unreadable YAML with apiVersion / kind lines: manifests still
}

// `nvidia-smi topo -m`: a header line naming GPU0 and then GPU1 or the affinity columns, after
// any preamble (topo_m_parse.cpp finds the matrix the same way).
bool has_topo_header(std::string_view text) {
  for (size_t at = text.find("GPU0"); at != std::string_view::npos; at = text.find("GPU0", at + 1)) {
    const size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view rest = text.substr(at, end - at);
    if (rest.find("GPU1") != std::string_view::npos || rest.find("CPU Affinity") != std::string_view::npos) return true;
  }
  return false;
}

std::optional<FileKindFound> csv_kind(std::string_view header) {
  const auto starts = [&](std::string_view prefix) { return header.substr(0, prefix.size()) == prefix; };
  const auto has = [&](std::string_view part) { return header.find(part) != std::string_view::npos; };
  if (starts("timestamp,duration,num_gpus")) return FileKindFound{FileKind::PhillyTrace, ""};
  if (starts("name,") && has("gpu_milli")) return FileKindFound{FileKind::AlibabaPods, ""};
  if (starts("sn,") && has(",gpu") && has("model")) return FileKindFound{FileKind::AlibabaNodes, ""};
  if (starts("node,start_s,duration_s")) return FileKindFound{FileKind::FailureTrace, ""};
  return std::nullopt;
}

// What formats/jobs/imported_jobs.h takes for job records (sacct, Helios) by their first lines.
std::optional<FileKindFound> records_kind(const std::string& path) {
  switch (record_format(path)) {
    case RecordFormat::Sacct: return FileKindFound{FileKind::Sacct, ""};
    case RecordFormat::Helios: return FileKindFound{FileKind::HeliosLog, ""};
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<FileKindFound> file_kind(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return std::nullopt;
  const std::string_view header = first_line(*text);
  if (header.empty()) return std::nullopt;
  const char first = header[header.find_first_not_of(" \t")];
  if (first == '{' || first == '[') return json_kind(*text);
  if (first == '<')
    return text->find("<system") != std::string::npos ? std::optional(FileKindFound{FileKind::NcclTopology, ""}) : std::nullopt;
  if (auto kind = csv_kind(header)) return kind;
  if (has_topo_header(std::string_view(*text).substr(0, 1 << 16))) return FileKindFound{FileKind::TopoMatrix, ""};
  if (auto kind = yaml_kind(*text, path)) return kind;
  return records_kind(path);
}

}  // namespace topsim
