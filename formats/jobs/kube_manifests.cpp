#include "formats/jobs/kube_manifests.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <ctime>
#include <filesystem>
#include <map>
#include <optional>

#include "core/llm_catalog.h"
#include "core/model_catalog.h"
#include "formats/hardware/node_source.h"
#include "formats/jobs/job_list_entries.h"
#include "formats/jobs/tenant_labels.h"
#include "formats/support/yaml_reader.h"
#include "util/input_file.h"

namespace topsim {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDefaultModel = "resnet50";
constexpr double kDefaultDurationS = 3600;

// One failure reading a document: the message after "<file>: document N (<kind> <name>): ".
struct ManifestFault {
  std::string what;
};

// `node[key]`, or an undefined node when `node` is no map or lacks the key (yaml-cpp throws when
// a missing node is indexed again).
YAML::Node child(const YAML::Node& node, const char* key) {
  if (!node || !node.IsMap() || !node[key]) return YAML::Node(YAML::NodeType::Undefined);
  return node[key];
}

std::string text_of(const YAML::Node& node, const std::string& field) {
  if (!node || node.IsNull()) return "";
  if (!node.IsScalar()) throw ManifestFault{field + ": must be a string"};
  return node.Scalar();
}

// A count in the manifest (replicas, parallelism); `fallback` when absent.
int64_t count_of(const YAML::Node& node, const std::string& field, int64_t fallback) {
  if (!node || node.IsNull()) return fallback;
  int64_t value = -1;
  const std::string text = node.IsScalar() ? node.Scalar() : "";
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (!node.IsScalar() || ec != std::errc() || ptr != text.data() + text.size() || value < 0 || value > 65535)
    throw ManifestFault{field + ": must be an integer in 0..65535, got '" + text + "'"};
  return value;
}

// A device quantity ("8", "1"); 0 when absent.
int64_t quantity(const YAML::Node& resources, const char* name, const std::string& field) {
  if (!resources || !resources.IsMap() || !child(resources, name)) return 0;
  return count_of(child(resources, name), field + "." + name, 0);
}

struct PodShape {
  int64_t gpus = 0;         // whole GPUs (nvidia.com/gpu or aliyun.com/gpu)
  int64_t gpu_mem_gib = 0;  // aliyun.com/gpu-mem
  int64_t gpu_core = 0;     // aliyun.com/gpu-core.percentage
};

// The devices a pod spec asks: summed over its containers, limits first (what the device plugin
// allocates), else requests.
PodShape pod_shape(const YAML::Node& spec, const std::string& field) {
  PodShape shape;
  if (!spec || !spec.IsMap()) throw ManifestFault{field + ": missing pod spec"};
  const YAML::Node containers = child(spec, "containers");
  if (!containers || !containers.IsSequence()) throw ManifestFault{field + ".containers: must be a list"};
  for (size_t c = 0; c < containers.size(); ++c) {
    const std::string at = field + ".containers[" + std::to_string(c) + "].resources";
    const YAML::Node resources = child(containers[c], "resources");
    if (!resources) continue;
    const YAML::Node limits = child(resources, "limits") ? child(resources, "limits") : child(resources, "requests");
    const std::string where = at + (child(resources, "limits") ? ".limits" : ".requests");
    shape.gpus += quantity(limits, "nvidia.com/gpu", where) + quantity(limits, "aliyun.com/gpu", where);
    shape.gpu_mem_gib += quantity(limits, "aliyun.com/gpu-mem", where);
    shape.gpu_core += quantity(limits, "aliyun.com/gpu-core.percentage", where);
  }
  return shape;
}

struct PodGroup {
  std::string role;  // "" or the replica type / task name
  int64_t replicas = 1;
  PodShape shape;
  std::string priority_class;  // spec.priorityClassName of its pods, "" when absent
};

// `replicas` pods of the pod spec `spec` (read at `field`).
PodGroup pod_group(std::string role, int64_t replicas, const YAML::Node& spec, const std::string& field) {
  PodShape shape = pod_shape(spec, field);
  return {std::move(role), replicas, shape, text_of(child(spec, "priorityClassName"), field + ".priorityClassName")};
}

// The replica specs of a Kubeflow job: {"Master": {replicas, template}, "Worker": ...}.
void replica_specs(const YAML::Node& specs, const std::string& field, std::vector<PodGroup>& groups) {
  if (!specs || !specs.IsMap()) throw ManifestFault{field + ": missing (a map of replica types)"};
  for (const auto& entry : specs) {
    const std::string role = entry.first.as<std::string>();
    const std::string at = field + "." + role;
    groups.push_back(pod_group(role, count_of(child(entry.second, "replicas"), at + ".replicas", 1),
                               child(child(entry.second, "template"), "spec"), at + ".template.spec"));
  }
}

std::vector<PodGroup> pod_groups(const std::string& kind, const YAML::Node& doc) {
  const YAML::Node spec = child(doc, "spec");
  std::vector<PodGroup> groups;
  if (kind == "Pod") {
    groups.push_back(pod_group("", 1, spec, "spec"));
  } else if (kind == "Job" && child(doc, "apiVersion") && child(doc, "apiVersion").Scalar().rfind("batch.volcano.sh", 0) == 0) {
    const YAML::Node tasks = child(spec, "tasks");
    if (!tasks || !tasks.IsSequence()) throw ManifestFault{"spec.tasks: must be a list"};
    for (size_t t = 0; t < tasks.size(); ++t) {
      const std::string at = "spec.tasks[" + std::to_string(t) + "]";
      groups.push_back(pod_group(text_of(child(tasks[t], "name"), at + ".name"),
                                 count_of(child(tasks[t], "replicas"), at + ".replicas", 1),
                                 child(child(tasks[t], "template"), "spec"), at + ".template.spec"));
    }
  } else if (kind == "Job") {
    groups.push_back(pod_group("", count_of(child(spec, "parallelism"), "spec.parallelism", 1),
                               child(child(spec, "template"), "spec"), "spec.template.spec"));
  } else if (kind == "Deployment" || kind == "StatefulSet" || kind == "ReplicaSet") {
    groups.push_back(pod_group("", count_of(child(spec, "replicas"), "spec.replicas", 1), child(child(spec, "template"), "spec"),
                               "spec.template.spec"));
  } else if (kind == "PyTorchJob") {
    replica_specs(child(spec, "pytorchReplicaSpecs"), "spec.pytorchReplicaSpecs", groups);
  } else if (kind == "TFJob") {
    replica_specs(child(spec, "tfReplicaSpecs"), "spec.tfReplicaSpecs", groups);
  } else if (kind == "MPIJob") {
    replica_specs(child(spec, "mpiReplicaSpecs"), "spec.mpiReplicaSpecs", groups);
  }
  return groups;
}

// RFC 3339 as Kubernetes writes creationTimestamp ("2024-05-01T10:00:00Z"), in seconds since the epoch.
std::optional<int64_t> timestamp(const std::string& text) {
  std::tm tm{};
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  char z = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &s, &z) != 7 || z != 'Z') return std::nullopt;
  tm.tm_year = y - 1900, tm.tm_mon = mo - 1, tm.tm_mday = d, tm.tm_hour = h, tm.tm_min = mi, tm.tm_sec = s;
  return static_cast<int64_t>(timegm(&tm));
}

// An annotation, else a label, of the manifest (or of its first pod template), "" when absent.
std::string setting(const YAML::Node& doc, const char* key) {
  for (const char* where : {"annotations", "labels"}) {
    const YAML::Node n = child(child(child(doc, "metadata"), where), key);
    if (n && n.IsScalar()) return n.Scalar();
  }
  return "";
}

// The queue and priority class the manifest names: its Kueue / KAI labels (tenant_labels.h),
// else, for the class, the first pod template giving spec.priorityClassName (Kueue takes the
// first PodSet's; a WorkloadPriorityClass label wins over it).
void add_tenant(const YAML::Node& doc, const std::vector<PodGroup>& groups, nlohmann::ordered_json& job) {
  const YAML::Node labels = child(child(doc, "metadata"), "labels");
  const auto tenant =
      tenant_labels([&](const char* key) { return text_of(child(labels, key), std::string("metadata.labels.") + key); });
  if (!tenant) throw ManifestFault{"metadata.labels: " + tenant.error().message};
  if (!tenant->queue.value.empty()) job["queue"] = tenant->queue.value;
  std::string priority_class = tenant->priority_class.value;
  for (const PodGroup& group : groups)
    if (priority_class.empty()) priority_class = group.priority_class;
  if (!priority_class.empty()) job["priority_class"] = priority_class;
}

struct Context {
  ImportedJobs out;
  std::vector<std::optional<int64_t>> created;  // per job, seconds since the epoch
  std::map<std::string, std::string> names;     // job name -> where it was defined
  bool noted_model = false, noted_work = false, noted_time = false;
};

void note_once(Context& ctx, bool& noted, std::string note) {
  if (!noted) ctx.out.notes.push_back(std::move(note));
  noted = true;
}

void add_work(Context& ctx, const YAML::Node& doc, nlohmann::ordered_json& job, const PodShape& share);
void add_job(Context& ctx, const YAML::Node& doc, nlohmann::ordered_json job, const std::string& label);

// An LLM job's "llm" object from its topsim/<key> annotations (docs/importers.md): integers,
// true/false flags and names, each checked again by the job-list reader.
nlohmann::ordered_json llm_settings(const YAML::Node& doc, const std::string& model) {
  nlohmann::ordered_json llm = {{"model", model}};
  const std::pair<const char*, const char*> integers[] = {{"topsim/tp", "tp"},
                                                          {"topsim/pp", "pp"},
                                                          {"topsim/dp", "dp"},
                                                          {"topsim/cp", "cp"},
                                                          {"topsim/ep", "ep"},
                                                          {"topsim/vpp", "vpp"},
                                                          {"topsim/sequence", "sequence"},
                                                          {"topsim/global-batch", "global_batch"},
                                                          {"topsim/micro-batch", "micro_batch"},
                                                          {"topsim/zero", "zero"}};
  for (const auto& [annotation, key] : integers)
    if (const std::string text = setting(doc, annotation); !text.empty()) {
      const auto value = nlohmann::ordered_json::parse(text, nullptr, false);
      if (!value.is_number_integer()) throw ManifestFault{std::string(annotation) + ": must be an integer, got '" + text + "'"};
      llm[key] = value;
    }
  const std::pair<const char*, const char*> flags[] = {{"topsim/sequence-parallel", "sequence_parallel"},
                                                       {"topsim/tp-overlap", "tp_overlap"},
                                                       {"topsim/dp-overlap", "dp_overlap"}};
  for (const auto& [annotation, key] : flags)
    if (const std::string text = setting(doc, annotation); !text.empty()) {
      if (text != "true" && text != "false")
        throw ManifestFault{std::string(annotation) + ": must be true or false, got '" + text + "'"};
      llm[key] = text == "true";
    }
  for (const auto& [annotation, key] : {std::pair{"topsim/recompute", "recompute"}, std::pair{"topsim/precision", "precision"}})
    if (const std::string text = setting(doc, annotation); !text.empty()) llm[key] = text;
  return llm;
}

void add_document(Context& ctx, const YAML::Node& doc, const std::string& where) {
  if (!doc || doc.IsNull()) return;
  if (!doc.IsMap()) throw ManifestFault{"not a Kubernetes object (a map with kind)"};
  const std::string kind = text_of(child(doc, "kind"), "kind");
  if (kind == "List") {
    const YAML::Node items = child(doc, "items");
    if (!items || !items.IsSequence()) throw ManifestFault{"items: must be a list"};
    for (size_t i = 0; i < items.size(); ++i) add_document(ctx, items[i], where + " item " + std::to_string(i));
    return;
  }
  const std::string name = text_of(child(child(doc, "metadata"), "name"), "metadata.name");
  const std::string label = where + ": " + (kind.empty() ? "?" : kind) + " " + name;
  std::vector<PodGroup> groups = pod_groups(kind, doc);
  if (groups.empty()) return ctx.out.skipped.push_back(label + " (not a workload topsim reads)");
  if (name.empty()) throw ManifestFault{"metadata.name: missing"};
  std::vector<int64_t> pods;  // GPUs of each GPU pod
  PodShape share;
  for (const PodGroup& g : groups) {
    if (g.shape.gpu_mem_gib > 0) {
      if (g.replicas != 1 || groups.size() != 1) throw ManifestFault{"a shared-GPU (aliyun.com/gpu-mem) workload is one pod"};
      share = g.shape;
    }
    if (g.shape.gpus > 0)
      for (int64_t r = 0; r < g.replicas; ++r) pods.push_back(g.shape.gpus);
  }
  if (pods.empty() && share.gpu_mem_gib == 0) return ctx.out.skipped.push_back(label + " (no GPU)");
  const std::string ns = text_of(child(child(doc, "metadata"), "namespace"), "metadata.namespace");
  nlohmann::ordered_json job = {{"name", ns.empty() || ns == "default" ? name : ns + "/" + name}};
  const std::string job_name = job["name"];
  if (const auto [it, fresh] = ctx.names.emplace(job_name, where); !fresh)
    throw ManifestFault{"job name '" + job_name + "' is used twice (also by " + it->second + ")"};
  add_tenant(doc, groups, job);
  if (share.gpu_mem_gib > 0) {
    job["gpu_mem_gib"] = share.gpu_mem_gib;
    if (share.gpu_core > 0) job["gpu_core_percent"] = share.gpu_core;
  } else if (std::all_of(pods.begin(), pods.end(), [&](int64_t p) { return p == pods.front(); })) {
    job["workers"] = pods.size();
    job["gpus_per_worker"] = pods.front();
  } else {
    job["pods"] = pods;
  }
  if (const std::string llm_model = setting(doc, kModelAnnotation);
      !llm_model.empty() && !find_model(llm_model) && find_llm_model(llm_model)) {
    job["llm"] = llm_settings(doc, llm_model);
    add_work(ctx, doc, job, share);
    return add_job(ctx, doc, std::move(job), label);
  }
  std::string framework = setting(doc, kFrameworkAnnotation);
  if (framework.empty()) framework = kind == "TFJob" ? "tensorflow" : "pytorch";
  std::string model = setting(doc, kModelAnnotation);
  if (model.empty()) {
    model = kDefaultModel;
    note_once(ctx, ctx.noted_model,
              std::string("no ") + kModelAnnotation + " annotation on some manifests: they train " + kDefaultModel);
  }
  if (framework != "tensorflow" && framework != "pytorch")
    throw ManifestFault{std::string(kFrameworkAnnotation) + ": '" + framework + "' is not tensorflow or pytorch"};
  if (auto found = find_model(model); !found) throw ManifestFault{std::string(kModelAnnotation) + ": " + found.error().message};
  job["framework"] = framework;
  job["model"] = model;
  add_work(ctx, doc, job, share);
  add_job(ctx, doc, std::move(job), label);
}

void add_work(Context& ctx, const YAML::Node& doc, nlohmann::ordered_json& job, const PodShape& share) {
  if (const std::string iterations = setting(doc, kIterationsAnnotation); !iterations.empty() && share.gpu_mem_gib == 0) {
    job["iterations"] = nlohmann::ordered_json::parse(iterations, nullptr, false);
    if (!job["iterations"].is_number_integer())
      throw ManifestFault{std::string(kIterationsAnnotation) + ": must be an integer, got '" + iterations + "'"};
  } else if (const std::string duration = setting(doc, kDurationAnnotation); !duration.empty()) {
    job["duration_s"] = nlohmann::ordered_json::parse(duration, nullptr, false);
    if (!job["duration_s"].is_number())
      throw ManifestFault{std::string(kDurationAnnotation) + ": must be a number, got '" + duration + "'"};
  } else {
    job["duration_s"] = kDefaultDurationS;
    note_once(ctx, ctx.noted_work,
              std::string("no ") + kDurationAnnotation + " or " + kIterationsAnnotation + " on some manifests: they run 3600 s");
  }
}

void add_job(Context& ctx, const YAML::Node& doc, nlohmann::ordered_json job, const std::string& label) {
  const std::string created = text_of(child(child(doc, "metadata"), "creationTimestamp"), "metadata.creationTimestamp");
  std::optional<int64_t> at;
  if (!created.empty() && !(at = timestamp(created)))
    throw ManifestFault{"metadata.creationTimestamp: '" + created + "' is not an RFC 3339 UTC time (2024-05-01T10:00:00Z)"};
  if (!at) note_once(ctx, ctx.noted_time, "no metadata.creationTimestamp on some manifests: they arrive first");
  ctx.created.push_back(at);
  ctx.out.entries->jobs.push_back(std::move(job));
  ctx.out.origins.push_back(label);
}

// The manifest files named or found in the folders named; what a folder holds under a manifest's
// name that is no regular file (a FIFO, a device, a socket, a link that leads nowhere or loops) is
// never opened: it is named in `skipped`.
std::vector<std::string> manifest_files(const std::vector<std::string>& paths, std::vector<std::string>& skipped) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
      files.push_back(path);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".yaml" && ext != ".yml" && ext != ".json") continue;
      if (Status regular = check_input_file(entry.path().string()); regular)
        found.push_back(entry.path().string());
      else
        skipped.push_back(regular.error().message.substr(regular.error().message.find('\'')));
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

}  // namespace

Expected<ImportedJobs> parse_kube_manifests(const std::vector<std::pair<std::string, std::string>>& files) {
  Context ctx;
  for (const auto& [file, text] : files) {
    auto documents = parse_yaml_stream(text, file);
    if (!documents) return documents.error();
    for (size_t d = 0; d < documents->size(); ++d) {
      const std::string where = file + " document " + std::to_string(d + 1);
      try {
        add_document(ctx, (*documents)[d].root, where);
      } catch (const ManifestFault& fault) {
        return Error{where + ": " + fault.what};
      } catch (const YAML::Exception& e) {
        return Error{where + ": " + e.msg};
      }
    }
  }
  if (ctx.out.entries->jobs.empty())
    return Error{"no workload asking GPUs in " + std::to_string(files.size()) + " file(s) (" +
                 std::to_string(ctx.out.skipped.size()) + " objects skipped)"};
  // Arrival times relative to the earliest creationTimestamp; jobs without one arrive at 0.
  std::optional<int64_t> first;
  for (const auto& c : ctx.created)
    if (c && (!first || *c < *first)) first = c;
  for (size_t j = 0; j < ctx.created.size(); ++j)
    ctx.out.entries->jobs[j]["submit_s"] = ctx.created[j] && first ? *ctx.created[j] - *first : 0;
  return std::move(ctx.out);
}

Expected<ImportedJobs> load_kube_manifests(const std::vector<std::string>& paths) {
  std::vector<std::string> not_files;
  const std::vector<std::string> files = manifest_files(paths, not_files);
  if (files.empty())
    return Error{"no manifest files (*.yaml, *.yml, *.json) in " + (paths.empty() ? std::string("''") : paths.front()) +
                 (not_files.empty() ? "" : " (skipped " + not_files.front() + ")")};
  std::vector<std::pair<std::string, std::string>> texts;
  for (const std::string& file : files) {
    auto text = read_text_file(file);
    if (!text) return text.error();
    texts.emplace_back(file, std::move(text).value());
  }
  auto imported = parse_kube_manifests(texts);
  if (imported) imported->skipped.insert(imported->skipped.begin(), not_files.begin(), not_files.end());
  return imported;
}

}  // namespace topsim
