#include "formats/queues/queue_yaml.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "formats/queues/queue_objects.h"
#include "formats/support/yaml_reader.h"
#include "util/input_file.h"

namespace topsim {
namespace {

namespace fs = std::filesystem;
using namespace queue_yaml;

constexpr const char* kKueueGroup = "kueue.x-k8s.io";
constexpr const char* kKueueConfigGroup = "config.kueue.x-k8s.io";

// The kinds read, by API group, with the versions that have them.
struct KindReader {
  const char* group;
  const char* kind;
  std::vector<std::string> versions;
  void (*read)(const Object&, QueueConfig&);
  bool has_spec;  // apiVersion, kind, metadata, spec, status; the others check their own top level
};

const std::vector<KindReader>& kind_readers() {
  static const std::vector<KindReader> table = {
      {kKueueGroup, "ClusterQueue", {"v1beta1", "v1beta2"}, read_cluster_queue, true},
      {kKueueGroup, "Cohort", {"v1alpha1", "v1beta1", "v1beta2"}, read_cohort, true},
      {kKueueGroup, "ResourceFlavor", {"v1beta1", "v1beta2"}, read_resource_flavor, true},
      {kKueueGroup, "LocalQueue", {"v1beta1", "v1beta2"}, read_local_queue, true},
      {kKueueGroup, "WorkloadPriorityClass", {"v1beta1", "v1beta2"}, read_workload_priority_class, false},
      {"scheduling.k8s.io", "PriorityClass", {"v1"}, read_priority_class, false},
      {kKueueConfigGroup, "Configuration", {"v1beta1", "v1beta2"}, read_configuration, false},
      {"scheduling.run.ai", "Queue", {"v2"}, read_kai_queue, true},
      {"kai.scheduler", "SchedulingShard", {"v1"}, read_kai_scheduling_shard, true},
  };
  return table;
}

// Kueue kinds that are no quota or priority (kueue v0.19.2 apis/kueue/v1beta2, v1alpha1): skipped.
const std::set<std::string> kKueueNotModelled = {"Topology",         "AdmissionCheck",    "ProvisioningRequestConfig",
                                                 "MultiKueueConfig", "MultiKueueCluster", "Workload"};

struct Context {
  QueueConfig config;
  std::string configuration_at;  // where the Configuration was read ("" when none yet)
};

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

// The reader of (group, kind); nullptr when topsim skips the kind. Fails on a kind of Kueue's
// groups that Kueue does not have (a misspelt kind is no object to skip silently).
const KindReader* reader_of(const Site& site, const YAML::Node& node, const std::string& group, const std::string& kind) {
  for (const KindReader& r : kind_readers())
    if (group == r.group && kind == r.kind) return &r;
  if ((group == kKueueGroup && !kKueueNotModelled.count(kind)) || group == kKueueConfigGroup) {
    std::vector<std::string> known;
    for (const KindReader& r : kind_readers())
      if (group == r.group) known.push_back(r.kind);
    if (group == kKueueGroup) known.insert(known.end(), kKueueNotModelled.begin(), kKueueNotModelled.end());
    site.fail(member(node, "kind"), "kind", "'" + kind + "' is no kind of " + group + " (kinds: " + joined(known) + ")");
  }
  return nullptr;
}

void add_object(Context& ctx, const YAML::Node& node, const Site& at, const std::string& api_version, const std::string& kind) {
  const size_t slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  const std::string version = api_version.substr(slash == std::string::npos ? 0 : slash + 1);
  const KindReader* reader = reader_of(at, node, group, kind);
  if (!reader) {
    ++ctx.config.skipped_kinds[kind];
    return;
  }
  if (std::find(reader->versions.begin(), reader->versions.end(), version) == reader->versions.end())
    at.fail(member(node, "apiVersion"), "apiVersion",
            "'" + api_version + "' has no " + kind + " topsim reads (versions: " + joined(reader->versions) + ")");
  Site site = at;
  const YAML::Node metadata = member(node, "metadata");
  if (present(metadata) && !metadata.IsMap()) at.fail(metadata, "metadata", "must be a map");
  const std::string name = text(at, member(metadata, "name"), "metadata.name");
  const std::string ns = text(at, member(metadata, "namespace"), "metadata.namespace");
  site.object = kind + (name.empty() ? "" : " ") + (kind == "LocalQueue" ? (ns.empty() ? "default" : ns) + "/" : "") + name;
  if (name.empty() && kind != "Configuration") site.fail(present(metadata) ? metadata : node, "metadata.name", "missing");
  if (reader->has_spec) check_map(site, node, "", {"apiVersion", "kind", "metadata", "spec", "status"});
  if (kind == "Configuration" && !ctx.configuration_at.empty())
    site.fail(node, "", "a second Kueue Configuration (the first is at " + ctx.configuration_at + ")");
  if (kind == "Configuration") ctx.configuration_at = site.where(node);
  reader->read(Object{node, version, site}, ctx.config);
}

void add_document(Context& ctx, const YAML::Node& node, const Site& at) {
  if (!present(node)) return;
  if (!node.IsMap()) at.fail(node, "", "not a Kubernetes object (a map with apiVersion and kind)");
  const std::string kind = text(at, member(node, "kind"), "kind");
  const std::string api_version = text(at, member(node, "apiVersion"), "apiVersion");
  // `kind: List` (kubectl) or a typed list (ClusterQueueList, QueueList) as the API server writes it.
  const bool typed_list = kind.size() > 4 && kind.compare(kind.size() - 4, 4, "List") == 0 && present(member(node, "items"));
  if (kind == "List" || typed_list) {
    const std::vector<YAML::Node> items = list_items(at, member(node, "items"), "items");
    for (const YAML::Node& item : items) add_document(ctx, item, at);
    return;
  }
  if (kind.empty() || api_version.empty())
    at.fail(node, kind.empty() ? "kind" : "apiVersion", "missing: not a Kubernetes object");
  add_object(ctx, node, at, api_version, kind);
}

bool yaml_name(const fs::path& p) { return p.extension() == ".yaml" || p.extension() == ".yml"; }

// The files of `path`: itself, or a folder's *.yaml and *.yml files, recursively, in sorted path
// order; what starts with '.' (.git, .github) is left out.
Expected<std::vector<std::string>> queue_files(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    if (Status s = check_input_file(path); !s) return s.error();
    return std::vector<std::string>{path};
  }
  std::vector<std::string> files;
  fs::recursive_directory_iterator it(path, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.filename().string().rfind('.', 0) == 0) {
      it.disable_recursion_pending();
      continue;
    }
    if (!yaml_name(p) || it->is_directory(ec)) continue;
    if (Status s = check_input_file(p.string()); !s) return s.error();
    files.push_back(p.string());
  }
  if (ec) return Error{"cannot read the folder '" + path + "': " + ec.message()};
  if (files.empty()) return Error{"no *.yaml or *.yml file under the folder '" + path + "'"};
  std::sort(files.begin(), files.end());
  return files;
}

std::string skipped_summary(const QueueConfig& config) {
  std::vector<std::string> kinds;
  for (const auto& [kind, count] : config.skipped_kinds) kinds.push_back(std::to_string(count) + " " + kind);
  return kinds.empty() ? "" : " (skipped: " + joined(kinds) + ")";
}

}  // namespace

Expected<QueueConfig> parse_queue_config(const std::vector<std::pair<std::string, std::string>>& files,
                                         const std::string& source) {
  Context ctx;
  ctx.config.source = source;
  for (const auto& [file, text] : files) {
    auto documents = parse_yaml_stream(text, file);
    if (!documents) return documents.error();
    for (const YamlDocument& document : *documents) {
      const Site at{file, document.first_line, "document"};
      try {
        add_document(ctx, document.root, at);
      } catch (const Fault& fault) {
        return Error{fault.message};
      } catch (const YAML::Exception& e) {
        return Error{file + ":" + std::to_string(document.first_line + std::max(0, e.mark.line)) + ": " + e.msg};
      }
    }
  }
  if (!ctx.config.kueue() && !ctx.config.kai())
    return Error{source + ": no Kueue ClusterQueue (kueue.x-k8s.io) and no KAI Queue (scheduling.run.ai/v2) in " +
                 std::to_string(files.size()) + " file(s)" + skipped_summary(ctx.config)};
  if (Status s = check_queue_config(ctx.config); !s) return s.error();
  return std::move(ctx.config);
}

Expected<QueueConfig> read_queue_config(const std::string& path) {
  auto files = queue_files(path);
  if (!files) return files.error();
  std::vector<std::pair<std::string, std::string>> texts;
  for (const std::string& file : *files) {
    auto text = read_text_file(file);
    if (!text) return text.error();
    texts.emplace_back(file, std::move(text).value());
  }
  return parse_queue_config(texts, path);
}

}  // namespace topsim
