#include "formats/jobs/kube_manifests.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <ctime>
#include <filesystem>
#include <map>
#include <optional>
#include <tuple>

#include "core/llm_catalog.h"
#include "core/model_catalog.h"
#include "formats/hardware/node_source.h"
#include "formats/jobs/job_list_entries.h"
#include "formats/jobs/kube_gpu_selector.h"
#include "formats/jobs/kube_topology_asks.h"
#include "formats/jobs/kube_workloads.h"
#include "formats/jobs/kube_yaml.h"
#include "formats/jobs/tenant_labels.h"
#include "formats/support/yaml_reader.h"
#include "util/input_file.h"
#include "util/text.h"

namespace topsim {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDefaultModel = "resnet50";
constexpr double kDefaultDurationS = 3600;

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

// The queue and priority class the manifest names: its Kueue / KAI labels (tenant_labels.h), else
// those of its first pod template that has them (KAI's docs label a batch Job's pod template:
// NVIDIA/KAI-Scheduler docs/batch/batch-job.yaml), else, for the class, the first pod template
// giving spec.priorityClassName (Kueue takes the first PodSet's; a WorkloadPriorityClass label
// wins over it).
void add_tenant(const YAML::Node& doc, const std::vector<PodGroup>& groups, nlohmann::ordered_json& job) {
  const auto read = [](const YAML::Node& labels, const std::string& field) {
    auto tenant = tenant_labels([&](const char* key) { return text_of(child(labels, key), field + "." + key); });
    if (!tenant) throw ManifestFault{field + ": " + tenant.error().message};
    return *tenant;
  };
  TenantLabels tenant = read(child(child(doc, "metadata"), "labels"), "metadata.labels");
  for (const PodGroup& group : groups)
    if (tenant.queue.value.empty() && tenant.priority_class.value.empty() && group.labels)
      tenant = read(group.labels, group.field + ".metadata.labels");
  if (!tenant.queue.value.empty()) job["queue"] = tenant.queue.value;
  std::string priority_class = tenant.priority_class.value;
  for (const PodGroup& group : groups)
    if (priority_class.empty()) priority_class = group.priority_class;
  if (!priority_class.empty()) job["priority_class"] = priority_class;
}

struct Context {
  ImportOptions options;
  ImportedJobs out;
  std::map<std::string, int> generated;         // generateName prefix -> objects named with it
  std::vector<std::optional<int64_t>> created;  // per job, seconds since the epoch
  std::map<std::string, std::string> names;     // job name -> where it was defined
  bool noted_model = false, noted_work = false, noted_time = false, noted_generated = false;
};

void note_once(Context& ctx, bool& noted, std::string note) {
  if (!noted) ctx.out.notes.push_back(std::move(note));
  noted = true;
}

void add_work(Context& ctx, const YAML::Node& doc, nlohmann::ordered_json& job, bool share);
void add_job(Context& ctx, const YAML::Node& doc, nlohmann::ordered_json job, const std::string& label);

// An LLM job's "llm" object from its topsim/<key> annotations (docs/importers.md): integers
// (topsim/micro-batch also "auto"), true/false flags and names, each checked again by the
// job-list reader.
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
                                                          {"topsim/zero", "zero"},
                                                          {"topsim/offload-layers", "offload_layers"}};
  for (const auto& [annotation, key] : integers)
    if (const std::string text = setting(doc, annotation); !text.empty()) {
      const bool micro_batch = std::string_view(key) == "micro_batch";
      const bool automatic = micro_batch && text == "auto";  // chosen per node type
      const auto value = automatic ? nlohmann::ordered_json("auto") : nlohmann::ordered_json::parse(text, nullptr, false);
      if (!automatic && !value.is_number_integer())
        throw ManifestFault{std::string(annotation) + ": must be an integer" + (micro_batch ? " or auto" : "") + ", got '" +
                            text + "'"};
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
  for (const auto& [annotation, key] : {std::pair{"topsim/recompute", "recompute"}, std::pair{"topsim/precision", "precision"},
                                        std::pair{"topsim/attention", "attention"}})
    if (const std::string text = setting(doc, annotation); !text.empty()) llm[key] = text;
  return llm;
}

// A shared-GPU workload as a job's share: gpu_mem_gib (whole GiB, as ACK allocates) and
// gpu_core_percent (a multiple of 5), `count` pods when replicated; "" on success, else why the
// share is not read. Conversions that change the ask are noted.
std::string share_shape(Context& ctx, const PodGroup& group, int64_t pods, nlohmann::ordered_json& job) {
  const PodGpuAsk& ask = group.ask;
  if (ask.share_cards > 1)
    return "a share of " + std::to_string(ask.share_cards) + " cards (" + ask.share_source +
           ") is not modelled: topsim's shares hold part of one card";
  int64_t gib = 0;
  if (ask.share_mib > 0) {
    gib = (ask.share_mib + 1023) / 1024;
    if (ask.share_mib % 1024 != 0)
      ctx.out.notes.push_back(ask.share_source + ": " + std::to_string(ask.share_mib) + " MiB read as " + std::to_string(gib) +
                              " GiB (shares hold whole GiB)");
  } else if (ctx.options.share_card_gib <= 0) {
    return ask.share_source + " is a share of a card whose memory the manifest does not give: give the card's GiB " +
           "(--share-card-gib, or share_card_gib in the workload section) to read it";
  } else {
    const int64_t milli = ask.share_milli > 0 ? ask.share_milli : 1000;  // a compute share alone holds the whole memory (HAMi)
    gib = std::max<int64_t>(1, (milli * ctx.options.share_card_gib + 999) / 1000);
    ctx.out.notes.push_back(ask.share_source + ": " + std::to_string(milli) + " thousandths of a " +
                            std::to_string(ctx.options.share_card_gib) + " GiB card read as " + std::to_string(gib) + " GiB");
  }
  job["gpu_mem_gib"] = gib;
  if (ask.share_core_percent > 0) {
    const int64_t core = std::min<int64_t>(100, (ask.share_core_percent + 4) / 5 * 5);
    if (core != ask.share_core_percent)
      ctx.out.notes.push_back(ask.share_source + ": compute " + std::to_string(ask.share_core_percent) + "% read as " +
                              std::to_string(core) + "% (ACK's shares are multiples of 5)");
    job["gpu_core_percent"] = core;
  }
  if (pods > 1) job["count"] = pods;
  return "";
}

// The job's pods: workers x gpus_per_worker, a pods list, or a share; "" on success, else why
// the object is not read.
std::string job_shape(Context& ctx, const std::string& kind, const WorkloadPods& w, nlohmann::ordered_json& job) {
  if (!w.not_read.empty()) return w.not_read;
  std::vector<int64_t> pods;  // GPUs of each GPU pod
  for (const PodGroup& g : w.groups) {
    if (g.ask.is_share()) {
      const bool single = w.groups.size() == 1 && (w.replicated || kind == "Pod" || kind == "Job");
      if (!single)
        return "a GPU share (" + g.ask.share_source +
               ") in a gang of several pods is not modelled: topsim's shares are single pods";
      return share_shape(ctx, g, g.replicas, job);
    }
    if (g.ask.gpus > 0)
      for (int64_t r = 0; r < g.replicas; ++r) pods.push_back(g.ask.gpus);
  }
  std::vector<std::string> unmodelled;
  for (const PodGroup& g : w.groups)
    for (const std::string& name : g.ask.unmodelled)
      if (std::find(unmodelled.begin(), unmodelled.end(), name) == unmodelled.end()) unmodelled.push_back(name);
  if (pods.empty() && !unmodelled.empty())
    return "its pods ask " + join(unmodelled, ", ") +
           ", which topsim does not model (whole nvidia.com/gpu cards and the "
           "shares of docs/importers.md are read)";
  if (pods.empty() || w.copies == 0) return "no pod asks GPUs";
  if (!unmodelled.empty())
    ctx.out.notes.push_back(std::string(job["name"]) + ": " + join(unmodelled, ", ") +
                            " asked beside whole GPUs is not modelled: the job runs on its nvidia.com/gpu cards alone");
  if (std::all_of(pods.begin(), pods.end(), [&](int64_t p) { return p == pods.front(); })) {
    job["workers"] = pods.size();
    job["gpus_per_worker"] = pods.front();
  } else {
    job["pods"] = pods;
  }
  if (w.copies > 1) job["count"] = w.copies;
  return "";
}

// The object's name: metadata.name, else metadata.generateName with a number in file order
// (Kubernetes appends random characters; noted).
std::string object_name(Context& ctx, const YAML::Node& metadata) {
  const std::string name = text_of(child(metadata, "name"), "metadata.name");
  if (!name.empty()) return name;
  const std::string prefix = text_of(child(metadata, "generateName"), "metadata.generateName");
  if (prefix.empty()) return "";
  note_once(ctx, ctx.noted_generated,
            "metadata.generateName: such objects are named by the prefix and a number in file order (Kubernetes appends "
            "random characters)");
  return prefix + std::to_string(++ctx.generated[prefix]);
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
  const YAML::Node metadata = child(doc, "metadata");
  const std::string api_version = text_of(child(doc, "apiVersion"), "apiVersion");
  const std::string name = object_name(ctx, metadata);
  const std::string label = where + ": " + (kind.empty() ? "?" : kind) + (name.empty() ? "" : " " + name);
  const WorkloadPods w = workload_pods(kind, api_version, doc, ctx.out.notes);
  if (w.not_read.empty() && name.empty()) throw ManifestFault{"metadata.name: missing (and no metadata.generateName)"};
  const std::string ns = text_of(child(metadata, "namespace"), "metadata.namespace");
  nlohmann::ordered_json job = {{"name", ns.empty() || ns == "default" ? name : ns + "/" + name}};
  const std::string job_name = job["name"];
  const auto skip = [&](const std::string& why) {
    ctx.out.skipped.push_back(label + ": " + why);
    ctx.out.skipped_jobs.emplace_back(job_name, ctx.out.skipped.back());
  };
  if (const std::string why = job_shape(ctx, kind, w, job); !why.empty()) return skip(why);
  std::string unselectable;
  auto models = gpu_model_selection(w.groups, job_name, ctx.out.notes, unselectable);
  if (!unselectable.empty()) return skip(unselectable);
  if (const auto [it, fresh] = ctx.names.emplace(job_name, where); !fresh)
    throw ManifestFault{"job name '" + job_name + "' is used twice (also by " + it->second + ")"};
  add_tenant(doc, w.groups, job);
  if (!models.empty()) job["gpu_models"] = std::move(models);
  const bool volcano_job = kind == "Job" && api_version.rfind("batch.volcano.sh/", 0) == 0;
  if (auto asks = topology_asks(doc, volcano_job, w.groups, job_name, ctx.out.notes); !asks.empty())
    job["annotations"] = std::move(asks);
  const bool share = job.contains("gpu_mem_gib");
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

void add_work(Context& ctx, const YAML::Node& doc, nlohmann::ordered_json& job, bool share) {
  if (const std::string iterations = setting(doc, kIterationsAnnotation); !iterations.empty() && !share) {
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
// never opened: it is named in `skipped` ("<path>: not a regular file (a FIFO)").
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
        skipped.push_back(entry.path().string() + ": " + without_path(regular.error().message, entry.path().string()));
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

// Whether `text` is an unrendered Helm chart template: Go template actions that read the chart's
// values, release or helpers (helm.sh/docs/chart_template_guide).
bool helm_template(const std::string& text) {
  for (const char* action : {"{{ .Values", "{{ .Release", "{{- .Values", "{{ include ", "{{- include ", "{{ template ",
                             "{{- if .Values", "{{ toYaml", "{{- toYaml", "{{- with .Values"})
    if (text.find(action) != std::string::npos) return true;
  return false;
}

// Reads one file into `ctx`; an error names the file (and the document).
Status add_file(Context& ctx, const std::string& file, const std::string& text) {
  if (helm_template(text))
    return Error{file + ": an unrendered Helm template ({{ .Values ... }}): render it first (helm template RELEASE CHART > " +
                 "manifests.yaml) and import that"};
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
  return Status::success();
}

// "no workload asking GPUs in N file(s): <why>; <why>; ..." (the first three reasons, workloads
// before objects that are none: those say least).
Error nothing_read(const Context& ctx, size_t files) {
  std::vector<std::string> reasons = ctx.out.skipped;
  std::stable_partition(reasons.begin(), reasons.end(),
                        [](const std::string& r) { return r.find(": not a workload topsim reads") == std::string::npos; });
  const std::string text = join_first(reasons, 3, "; ");
  return Error{"no workload asking GPUs in " + std::to_string(files) + " file(s)" + (text.empty() ? "" : ": " + text)};
}

}  // namespace

std::string without_path(const std::string& message, const std::string& path) {
  for (const char* verb : {"cannot open '", "cannot read '"})
    if (message.rfind(verb + path + "': ", 0) == 0) return message.substr(std::string(verb).size() + path.size() + 3);
  return message;
}

Expected<ImportedJobs> parse_kube_manifests(const std::vector<std::pair<std::string, std::string>>& files,
                                            const ImportOptions& options) {
  Context ctx;
  ctx.options = options;
  const bool lenient = files.size() > 1 && !options.strict;
  for (const auto& [file, text] : files) {
    const size_t jobs_before = ctx.out.entries->jobs.size(), skipped_before = ctx.out.skipped.size(),
                 skipped_jobs_before = ctx.out.skipped_jobs.size();
    const size_t notes_before = ctx.out.notes.size(), created_before = ctx.created.size();
    const std::array<bool, 4> noted_before = {ctx.noted_model, ctx.noted_work, ctx.noted_time, ctx.noted_generated};
    const std::map<std::string, int> generated_before = ctx.generated;
    Status read = add_file(ctx, file, text);
    if (read) continue;
    if (!lenient) return read.error();
    // The file is left out whole: what it added before its error is taken back.
    while (ctx.out.entries->jobs.size() > jobs_before) ctx.out.entries->jobs.erase(ctx.out.entries->jobs.size() - 1);
    ctx.out.origins.resize(jobs_before);
    ctx.created.resize(created_before);
    ctx.out.skipped.resize(skipped_before);
    ctx.out.skipped_jobs.resize(skipped_jobs_before);
    ctx.out.notes.resize(notes_before);
    std::tie(ctx.noted_model, ctx.noted_work, ctx.noted_time, ctx.noted_generated) =
        std::tie(noted_before[0], noted_before[1], noted_before[2], noted_before[3]);
    ctx.generated = generated_before;
    for (auto it = ctx.names.begin(); it != ctx.names.end();)
      it = it->second.rfind(file + " ", 0) == 0 ? ctx.names.erase(it) : std::next(it);
    ctx.out.skipped.push_back(read.error().message);
  }
  if (ctx.out.entries->jobs.empty()) return nothing_read(ctx, files.size());
  // Arrival times relative to the earliest creationTimestamp; jobs without one arrive at 0.
  std::optional<int64_t> first;
  for (const auto& c : ctx.created)
    if (c && (!first || *c < *first)) first = c;
  for (size_t j = 0; j < ctx.created.size(); ++j)
    ctx.out.entries->jobs[j]["submit_s"] = ctx.created[j] && first ? *ctx.created[j] - *first : 0;
  return std::move(ctx.out);
}

Expected<ImportedJobs> load_kube_manifests(const std::vector<std::string>& paths, const ImportOptions& options) {
  std::vector<std::string> not_files;
  const std::vector<std::string> files = manifest_files(paths, not_files);
  if (files.empty())
    return Error{"no manifest files (*.yaml, *.yml, *.json) in " + (paths.empty() ? std::string("''") : paths.front()) +
                 (not_files.empty() ? "" : " (skipped " + not_files.front() + ")")};
  if (options.strict && !not_files.empty()) return Error{not_files.front()};
  std::vector<std::pair<std::string, std::string>> texts;
  const bool lenient = files.size() > 1 && !options.strict;
  for (const std::string& file : files) {
    auto text = read_text_file(file);
    if (text) {
      texts.emplace_back(file, std::move(text).value());
    } else if (lenient) {
      not_files.push_back(file + ": " + without_path(text.error().message, file));
    } else {
      return text.error();
    }
  }
  if (texts.empty()) return Error{"no readable manifest file: " + not_files.front()};
  auto imported = parse_kube_manifests(texts, options);
  if (imported) imported->skipped.insert(imported->skipped.begin(), not_files.begin(), not_files.end());
  return imported;
}

}  // namespace topsim
