// The "workload" section of a scenario: an embedded job list, a synthetic workload, the Philly
// trace, the Alibaba 2023 trace as training jobs (`alibaba`) or as its pods (`alibaba-pods`).
// The workload is built for the scenario's seed; kinds that draw at random also get a builder
// for the other run seeds (sim/seeds.h), unless their section fixes its own "seed".
#include <filesystem>
#include <memory>

#include "core/hardware.h"
#include "core/model_catalog.h"
#include "formats/jobs/imported_jobs.h"
#include "formats/jobs/job_list_json.h"
#include "formats/traces/alibaba_workload.h"
#include "formats/traces/trace_pods.h"
#include "scenario/scenario_sections.h"
#include "sim/workload/workload_mix.h"
#include "util/suggest.h"
#include "util/text.h"

namespace topsim {
namespace {

// The most pods a fill experiment may draw for one run (docs/limits.md).
constexpr double kMaxFillDraws = 1e7;

const std::vector<std::string> kKinds = {"jobs",         "synthetic",  "philly", "alibaba",
                                         "alibaba-pods", "kubernetes", "sacct",  "helios"};

// Launches every job as pods of `pod_gpus` GPUs (one process per GPU with MPI/Horovod when 1),
// when its GPU count divides evenly; jobs with explicit unequal pods keep theirs.
void split_into_pods(Workload& workload, int pod_gpus) {
  change_jobs(workload, [pod_gpus](JobSpec& job) {
    const int total = job.total_gpus();
    if (!job.is_training() || !job.unequal_pod_gpus.empty() || total % pod_gpus != 0 || total / pod_gpus > 65535) return;
    job.workers = static_cast<uint16_t>(total / pod_gpus);
    job.gpus_per_worker = static_cast<uint16_t>(pod_gpus);
  });
}

// The same jobs with what they train drawn again for another seed.
std::function<Workload(uint64_t)> redraw_with(std::shared_ptr<const Workload> base, TrainingDraw draw) {
  return [base, draw](uint64_t seed) {
    Workload w = *base;
    draw_training(w.jobs, draw, seed);
    return w;
  };
}

int64_t cluster_capacity_milli(const ClusterSpec& cluster) {
  int64_t gpus = 0;
  for (const NodeGroupSpec& g : cluster.groups) gpus += static_cast<int64_t>(g.model.gpus.size()) * g.count;
  for (const TraceNode& node : cluster.trace_nodes) gpus += node.gpu_count;
  return gpus * kMilliPerGpu;
}

// `reference`: the workload's reference GPU (null: none), which the model mix's LLMs are drawn to
// fit (TrainingDraw).
void read_synthetic(const JsonAt& at, const std::string& source, const GpuModel* reference, Scenario& s,
                    std::optional<Error>& verbatim) {
  SyntheticOptions defaults;
  defaults.seed = s.seed;
  defaults.reference_gpu = reference;
  auto options = read_synthetic_options(at, source, defaults, {"kind", "pod_gpus", "reference_gpu"});
  if (!options) return verbatim.emplace(options.error()), void();
  s.workload = std::make_shared<const Workload>(stream_synthetic(*options));
  if (!at.value->contains("seed"))
    s.workload_for_seed = [options = *options](uint64_t seed) {
      SyntheticOptions o = options;
      o.seed = seed;
      return stream_synthetic(o);
    };
}

void read_philly(JsonErrors& errors, const JsonAt& at, const std::string& source, const std::string& base_dir,
                 const GpuModel* reference, Scenario& s, std::optional<Error>& verbatim) {
  PhillyOptions defaults;
  defaults.seed = s.seed;
  defaults.reference_gpu = reference;
  auto philly = read_philly_source(at, source, defaults, {"kind", "pod_gpus", "reference_gpu"});
  if (!philly) return verbatim.emplace(philly.error()), void();
  auto w = load_philly(resolve_path(base_dir, philly->path), philly->options);
  if (!w) return errors.fail(at.pointer + "/path", w.error().message);
  auto base = std::make_shared<const Workload>(std::move(w).value());
  s.workload = base;
  if (!at.value->contains("seed"))
    s.workload_for_seed = redraw_with(
        base, TrainingDraw(philly->options.model_mix, philly->options.tensorflow_share, philly->options.reference_gpu));
}

void read_alibaba(JsonErrors& errors, const JsonAt& at, const std::string& base_dir, Scenario& s) {
  JsonObject o(errors, at, {"kind", "path", "seed", "pod_gpus", "share_card_gib", "share_core", "reference_gpu"});
  if (!o.require("path")) return;
  AlibabaJobOptions options;
  options.seed = static_cast<uint64_t>(o.integer("seed", 0, INT64_MAX).value_or(static_cast<int64_t>(s.seed)));
  options.share_card_gib = static_cast<int>(o.integer("share_card_gib", 1, 4096).value_or(0));
  if (auto core = o.member("share_core")) {
    if (!core->value->is_boolean())
      o.fail("share_core", "must be true or false");
    else if (!o.has("share_card_gib"))
      o.fail("share_core", "needs \"share_card_gib\" (the card size shares are converted to)");
    else
      options.share_core = core->value->get<bool>();
  }
  if (errors.failed()) return;
  auto w = load_alibaba_jobs(resolve_path(base_dir, o.string("path").value_or("")), options);
  if (!w) return errors.fail(at.pointer + "/path", w.error().message);
  auto base = std::make_shared<const Workload>(std::move(w).value());
  s.workload = base;
  if (!o.has("seed")) s.workload_for_seed = redraw_with(base, alibaba_training_draw());
}

// {"kind": "kubernetes", "path": "manifests/" | ["a.yaml", ...]}: workload manifests
// (formats/jobs/kube_manifests.h); {"kind": "sacct", "path": "sacct.txt"}: Slurm records (formats/jobs/sacct.h).
// Read as the job list `topsim import jobs` writes.
void read_imported(JsonErrors& errors, std::optional<Error>& verbatim, const JsonAt& at, const std::string& base_dir, Scenario& s,
                   const std::string& kind) {
  JsonObject o(errors, at, {"kind", "path", "pod_gpus", "reference_gpu", "share_card_gib", "strict", "format"});
  if (!o.require("path")) return;
  ImportOptions options;
  if (kind != "kubernetes" && (o.has("share_card_gib") || o.has("strict")))
    return o.fail(o.has("strict") ? "strict" : "share_card_gib", "applies to Kubernetes manifests (\"kind\": \"kubernetes\")");
  if (auto gib = o.integer("share_card_gib", 1, 1024)) options.share_card_gib = static_cast<int>(*gib);
  if (auto strict = o.member("strict")) {
    if (!strict->value->is_boolean()) return o.fail("strict", "must be true or false");
    options.strict = strict->value->get<bool>();
  }
  if (kind != "sacct" && o.has("format")) return o.fail("format", "applies to sacct output (\"kind\": \"sacct\")");
  if (auto format = o.string("format")) options.sacct_format = *format;
  if (errors.failed()) return;
  std::vector<std::string> paths;
  const JsonAt path = *o.member("path");
  if (path.value->is_string()) {
    paths.push_back(resolve_path(base_dir, path.value->get<std::string>()));
  } else if (path.value->is_array() && !path.value->empty()) {
    for (size_t i = 0; i < path.value->size(); ++i) {
      const auto p = json_string(errors, path.element(i));
      if (!p) return;
      paths.push_back(resolve_path(base_dir, *p));
    }
  } else {
    return o.fail("path", "must be a file or folder of manifests, or a non-empty list of them");
  }
  if (kind != "kubernetes" && paths.size() != 1) return o.fail("path", "one " + kind + " file");
  const RecordFormat format = kind == "sacct"    ? RecordFormat::Sacct
                              : kind == "helios" ? RecordFormat::Helios
                                                 : RecordFormat::Manifests;
  auto imported = load_job_records(paths, format, options);
  if (!imported) return verbatim.emplace(imported.error()), void();  // the importer's error names the files
  // The importer names files as it opened them (absolute under --workload); what the results keep
  // names them from the folder holding what was given, wherever the run started.
  const auto from_given = [&paths](std::string& line) {
    for (const std::string& given : paths) {
      std::filesystem::path p = std::filesystem::path(given).lexically_normal();
      if (p.filename().empty()) p = p.parent_path();
      const std::string parent = p.parent_path().string() + "/";
      if (parent.size() > 1 && line.rfind(parent, 0) == 0) return line.erase(0, parent.size()), void();
    }
  };
  for (std::string& line : imported->skipped) from_given(line);
  for (auto& named : imported->skipped_jobs) from_given(named.second);
  auto w = imported_workload(*imported, at.pointer + "/path");
  if (!w) return verbatim.emplace(w.error()), void();
  // The file's or folder's own name ("manifests/" is "manifests").
  std::filesystem::path first = std::filesystem::path(paths.front()).lexically_normal();
  if (first.filename().empty()) first = first.parent_path();
  // "Kubernetes manifests from manifests", "Slurm sacct from sacct.txt (+1)".
  w->source = std::string(kind == "sacct"    ? "Slurm sacct"
                          : kind == "helios" ? "Helios"
                                             : "Kubernetes manifests") +
              " from " + first.filename().string() + (paths.size() > 1 ? " (+" + std::to_string(paths.size() - 1) + ")" : "");
  // What was left out, so every record is accounted for: "(skipped: <why>; <why>; <why>; and 4 more)".
  if (!imported->skipped.empty()) w->source += " (skipped: " + join_first(imported->skipped, 3, "; ") + ")";
  s.workload = std::make_shared<const Workload>(std::move(w).value());
}

void read_alibaba_pods(JsonErrors& errors, const JsonAt& at, const std::string& base_dir, Scenario& s) {
  JsonObject o(errors, at, {"kind", "path", "max_pods"});
  if (!o.require("path")) return;
  const std::optional<std::string> path = o.string("path");
  const int64_t max_pods = o.integer("max_pods", 0, INT64_MAX).value_or(0);
  if (errors.failed()) return;
  if (s.cluster.trace_nodes.empty())
    return o.fail("kind",
                  "alibaba-pods runs on a trace's nodes: give the cluster a \"node_list\" (for modelled nodes use kind alibaba)");
  auto list = load_trace_pods(resolve_path(base_dir, *path));
  if (!list) return o.fail("path", list.error().message);
  auto pods = std::make_shared<const TracePodList>(std::move(list).value());
  if (s.mode == ExperimentMode::Fill) {
    if (o.has("max_pods")) return o.fail("max_pods", "applies to replays (a fill experiment draws from the whole list)");
    const int64_t capacity = cluster_capacity_milli(s.cluster);
    // Draws go on until the GPU request reaches target_load x capacity: the list must ask GPUs,
    // and not so little that the draws become endless.
    double ask_milli = 0;
    for (const JobSpec& pod : pods->pods) ask_milli += static_cast<double>(pod.gpu_milli_total());
    if (!(ask_milli > 0))
      return o.fail("path", pods->file + ": no pod asks for a GPU (" + std::to_string(pods->pods.size()) +
                                " pods): a fill experiment draws pods until their GPU request reaches target_load");
    const double draws = s.target_load * static_cast<double>(capacity) / (ask_milli / static_cast<double>(pods->pods.size()));
    if (draws > kMaxFillDraws)
      return o.fail("path", "reaching target_load would draw about " + std::to_string(static_cast<int64_t>(draws)) +
                                " pods (at most " + std::to_string(static_cast<int64_t>(kMaxFillDraws)) +
                                "): the pods ask too little GPU for this cluster");
    s.workload_for_seed = [pods, capacity, target = s.target_load,
                           artifact = s.protocol == FillProtocol::FgdArtifact](uint64_t seed) {
      return artifact ? artifact_trace_pods(*pods, seed, capacity, target) : sample_trace_pods(*pods, seed, capacity, target);
    };
    s.workload = std::make_shared<const Workload>(s.workload_for_seed(s.seed));
    return;
  }
  auto w = replay_trace_pods(*pods, max_pods);
  if (!w) return o.fail("path", w.error().message);
  s.workload = std::make_shared<const Workload>(std::move(w).value());
}

// The GPU a source's durations were measured on, when the scenario does not say
// (docs/catalog.md "Reference GPUs"): Philly's 8-GPU machines have 24 GB GPUs (msr-fiddle/
// philly-traces cluster_machine_list: 231 x 8 GPUs of 24 GB, 1,848 of the 2,490 GPUs; issue #8),
// read as Tesla P40 - an assumption, the trace does not name the model. Helios (Hu et al.,
// SC'21): its clusters are V100 machines. Synthetic workloads: V100, a stated default. The
// Alibaba trace names no model for G2/G3 (its README: "undisclosed internal GPU codes"); its
// most numerous named 8-GPU model is the V100. Job lists, manifests and sacct records: none -
// the scenario says, or the cluster has one GPU model.
std::string default_reference_gpu(const std::string& kind) {
  if (kind == "philly") return "p40";
  if (kind == "synthetic" || kind == "helios" || kind == "alibaba") return "v100";
  return "";
}

// The section's "reference_gpu": a catalog GPU with throughput figures; nullopt after an error.
std::optional<std::string> read_reference_gpu(JsonErrors& errors, const JsonAt& at, const std::string& kind) {
  if (!at.value->contains("reference_gpu")) return default_reference_gpu(kind);
  if (kind == "alibaba-pods")
    return errors.fail(at.pointer + "/reference_gpu", "does not apply to trace pods (their run times are the trace's)"),
           std::nullopt;
  const auto name = json_string(errors, at.member("reference_gpu"));
  if (!name) return std::nullopt;
  const auto gpu = training_gpu(*name);
  if (!gpu) return errors.fail(at.pointer + "/reference_gpu", gpu.error().message), std::nullopt;
  return (*gpu)->name;
}

}  // namespace

void read_workload(JsonErrors& errors, std::optional<Error>& verbatim, const JsonAt& at, const std::string& source,
                   const std::string& base_dir, Scenario& s) {
  if (!at.value->is_object()) return errors.fail(at.pointer, "must be an object with a \"kind\" (" + join_names(kKinds) + ")");
  const std::string kind =
      at.value->contains("kind") && (*at.value)["kind"].is_string() ? (*at.value)["kind"].get<std::string>() : "";
  if (s.mode == ExperimentMode::Fill && kind != "alibaba-pods")
    return errors.fail(at.pointer + "/kind", "a fill experiment draws pods from a trace's pod list: kind must be alibaba-pods");
  if (!s.cluster.trace_nodes.empty() && kind != "alibaba-pods")
    return errors.fail(at.pointer + "/kind", "a cluster from a node list runs the trace's pods: kind must be alibaba-pods");
  const auto reference_gpu = read_reference_gpu(errors, at, kind);
  if (!reference_gpu) return;
  int pod_gpus = 0;  // 0: keep the workload's pod shapes
  if (at.value->contains("pod_gpus")) {
    if (kind == "alibaba-pods") return errors.fail(at.pointer + "/pod_gpus", "does not apply to trace pods (each is one pod)");
    if (auto v = json_integer(errors, at.member("pod_gpus"), 1, 65535)) pod_gpus = static_cast<int>(*v);
  }
  if (kind == "jobs") {
    JsonObject o(errors, at, {"kind", "jobs", "pod_gpus", "reference_gpu"});
    if (!o.require("jobs")) return;
    auto w = read_job_list(*o.member("jobs"), source);
    if (!w) return verbatim.emplace(w.error()), void();
    w->source =
        std::filesystem::path(source).filename().string() + "#" + at.pointer + "/jobs";  // no folder: results do not depend on it
    s.workload = std::make_shared<const Workload>(std::move(w).value());
  } else if (kind == "synthetic") {
    read_synthetic(at, source, find_gpu_model(*reference_gpu), s, verbatim);
  } else if (kind == "philly") {
    read_philly(errors, at, source, base_dir, find_gpu_model(*reference_gpu), s, verbatim);
  } else if (kind == "alibaba") {
    read_alibaba(errors, at, base_dir, s);
  } else if (kind == "alibaba-pods") {
    read_alibaba_pods(errors, at, base_dir, s);
  } else if (kind == "kubernetes" || kind == "sacct" || kind == "helios") {
    read_imported(errors, verbatim, at, base_dir, s, kind);
  } else {
    return errors.fail(at.pointer + "/kind", "must be one of " + join_names(kKinds) + did_you_mean(kind, kKinds));
  }
  if (s.workload && !reference_gpu->empty()) {
    Workload with = *s.workload;
    set_reference_gpu(with, *reference_gpu);
    s.workload = std::make_shared<const Workload>(std::move(with));
    if (auto rebuild = s.workload_for_seed)
      s.workload_for_seed = [rebuild, gpu = *reference_gpu](uint64_t seed) {
        Workload w = rebuild(seed);
        set_reference_gpu(w, gpu);
        return w;
      };
  }
  if (pod_gpus > 0 && s.workload) {
    Workload split = *s.workload;
    split_into_pods(split, pod_gpus);
    s.workload = std::make_shared<const Workload>(std::move(split));
    if (auto rebuild = s.workload_for_seed)
      s.workload_for_seed = [rebuild, pod_gpus](uint64_t seed) {
        Workload w = rebuild(seed);
        split_into_pods(w, pod_gpus);
        return w;
      };
  }
}

}  // namespace topsim
