// `topsim import jobs MANIFEST... -o jobs.json`: Kubernetes workload manifests as a topsim job
// list (formats/jobs/kube_manifests.h).
#include <fmt/format.h>

#include "cli/command_table.h"
#include "cli/output_file.h"
#include "formats/jobs/imported_jobs.h"
#include "scenario/other_inputs.h"
#include "util/text.h"

namespace topsim::cli {
namespace {

class ImportJobs : public Command {
 public:
  void declare(OptionSet& options) override {
    options.argument("manifests", &inputs_, -1);
    options.visible.add_options()("output,o", po::value(&output_)->value_name("PATH"),
                                  "the workload JSON to write ('-' for stdout); required")(
        "share-card-gib", po::value(&import_.share_card_gib)->value_name("GIB"),
        "the memory of the cards a share given as a fraction of a card is read against (KAI gpu-fraction, "
        "alibabacloud.com/gpu-milli, HAMi gpumem-percentage); without it such objects are skipped, saying so")(
        "sacct-format", po::value(&import_.sacct_format)->value_name("A,B,..."),
        "sacct output written with --noheader: the --format it was run with (its column order)")(
        "strict", po::bool_switch(&import_.strict),
        "fail when any manifest file cannot be read (default: skip it, saying why, and read the others)");
  }

  Status finish(const po::variables_map& values) override {
    if (inputs_.empty()) return Error{"give manifest files or folders (YAML or JSON)"};
    if (values.count("share-card-gib") && (import_.share_card_gib < 1 || import_.share_card_gib > 1024))
      return Error{"--share-card-gib: the card's memory in GiB (1-1024), got " + std::to_string(import_.share_card_gib)};
    if (output_.empty()) return Error{"-o PATH is required: the workload JSON to write"};
    return {};
  }

  Outcome execute(Streams io) override {
    if (Status s = check_output_path(output_); !s) return Outcome::bad_input(s.error().message);
    const RecordFormat format = inputs_.size() == 1 ? record_format(inputs_.front()) : RecordFormat::Manifests;
    auto imported = load_job_records(inputs_, format, import_);
    if (!imported) {
      for (const std::string& input : inputs_)
        if (std::optional<std::string> other = other_input(input, Wanted::JobRecords)) return Outcome::bad_input(*other);
      return Outcome::bad_input(imported.error().message);
    }
    if (auto check = imported_workload(*imported, ""); !check) return Outcome::bad_input(check.error().message);
    if (Status s = write_output(output_, render_job_list(*imported), io.out); !s) return Outcome::bad_input(s.error().message);
    std::ostream& note = output_ == "-" ? io.notes : io.out;
    for (const std::string& n : imported->notes) note << "note: " << n << "\n";
    for (const std::string& skipped : imported->skipped) note << "skipped " << skipped << "\n";
    note << fmt::format("{} -> {}\n", counted(static_cast<long long>(imported->size()), "job"),
                        output_ == "-" ? "stdout" : output_);
    return Outcome::ok();
  }

 private:
  std::vector<std::string> inputs_;
  std::string output_;
  ImportOptions import_;
};

const Registrar registered{{
    "import jobs",
    "turn Kubernetes manifests, Slurm sacct output or Helios logs into a topsim job list",
    "<manifest|folder>... -o <jobs.json> | <sacct.txt | cluster_log.csv> -o <jobs.json>",
    "Reads Pod, batch Job (parallelism), Deployment / StatefulSet / ReplicaSet (replicas), Kubeflow\n"
    "PyTorchJob / TFJob / MPIJob / PaddleJob / MXJob / XGBoostJob / JAXJob (replica specs) and\n"
    "TrainJob, Volcano Job (tasks), JobSet, LeaderWorkerSet and KubeRay RayJob / RayCluster /\n"
    "RayService, in YAML (several documents per file, anchors and merge keys) or JSON, `kind: List`\n"
    "included; a folder gives its *.yaml, *.yml and *.json files, and a file of it that cannot be\n"
    "read is skipped, saying why (--strict: fail). Each manifest with GPU pods is one job: its GPU\n"
    "pods (nvidia.com/gpu, aliyun.com/gpu) are the gang; GPU shares (ACK aliyun.com/gpu-mem, HAMi\n"
    "nvidia.com/gpumem / gpucores, KAI gpu-fraction / gpu-memory, alibabacloud.com/gpu-milli /\n"
    "gpu-mem) make a shared-GPU job. Every object not read is listed with why.\n"
    "The annotations topsim/model, topsim/framework, topsim/duration-s or topsim/iterations say\n"
    "what Kubernetes does not (defaults: resnet50, pytorch (tensorflow for TFJob), 3600 s, each\n"
    "noted); metadata.creationTimestamp gives the arrival. Other kinds are listed as skipped.\n"
    "Writes {\"kind\": \"jobs\", \"jobs\": [...]}: a scenario's workload, inline or as\n"
    "\"workload\": \"jobs.json\".\n"
    "A file of `sacct --allocations --parsable2 --format=JobID,JobName,Submit,Start,End,Elapsed,\n"
    "AllocTRES,NNodes,State` output is read as Slurm records instead (also its fixed-width table,\n"
    "or --noheader output with --sacct-format): each allocation that ran with gres/gpu is a job\n"
    "of NNodes pods. A Helios cluster_log.csv (header job_id,...,gpu_num,\n"
    "...) is read the same way. Formats: docs/importers.md.",
    [] { return std::make_unique<ImportJobs>(); },
}};

}  // namespace
}  // namespace topsim::cli
