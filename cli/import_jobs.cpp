// `topsim import jobs MANIFEST... -o jobs.json`: Kubernetes workload manifests as a topsim job
// list (formats/jobs/kube_manifests.h).
#include <fmt/format.h>

#include "cli/command_table.h"
#include "cli/output_file.h"
#include "formats/jobs/imported_jobs.h"

namespace topsim::cli {
namespace {

class ImportJobs : public Command {
 public:
  void declare(OptionSet& options) override {
    options.argument("manifests", &inputs_, -1);
    options.visible.add_options()("output,o", po::value(&output_)->value_name("PATH"),
                                  "the workload JSON to write ('-' for stdout); required");
  }

  Status finish(const po::variables_map&) override {
    if (inputs_.empty()) return Error{"give manifest files or folders (YAML or JSON)"};
    if (output_.empty()) return Error{"-o PATH is required: the workload JSON to write"};
    return {};
  }

  Outcome execute(Streams io) override {
    if (Status s = check_output_path(output_); !s) return Outcome::bad_input(s.error().message);
    const RecordFormat format = inputs_.size() == 1 ? record_format(inputs_.front()) : RecordFormat::Manifests;
    auto imported = load_job_records(inputs_, format);
    if (!imported) return Outcome::bad_input(imported.error().message);
    if (auto check = imported_workload(*imported, ""); !check) return Outcome::bad_input(check.error().message);
    if (Status s = write_output(output_, render_job_list(*imported), io.out); !s) return Outcome::bad_input(s.error().message);
    std::ostream& note = output_ == "-" ? io.notes : io.out;
    for (const std::string& n : imported->notes) note << "note: " << n << "\n";
    for (const std::string& skipped : imported->skipped) note << "skipped " << skipped << "\n";
    note << fmt::format("{} job(s) -> {}\n", imported->size(), output_ == "-" ? "stdout" : output_);
    return Outcome::ok();
  }

 private:
  std::vector<std::string> inputs_;
  std::string output_;
};

const Registrar registered{{
    "import jobs",
    "turn Kubernetes manifests, Slurm sacct output or Helios logs into a topsim job list",
    "<manifest|folder>... -o <jobs.json> | <sacct.txt | cluster_log.csv> -o <jobs.json>",
    "Reads Pod, batch Job (parallelism), Deployment / StatefulSet / ReplicaSet (replicas), Kubeflow\n"
    "PyTorchJob / TFJob / MPIJob (replica specs) and Volcano Job (tasks), in YAML (several\n"
    "documents per file) or JSON, `kind: List` included; a folder gives its *.yaml, *.yml and\n"
    "*.json files. Each manifest with GPU pods is one job: its GPU pods (nvidia.com/gpu,\n"
    "aliyun.com/gpu; aliyun.com/gpu-mem and gpu-core.percentage make a GPU share) are the gang.\n"
    "The annotations topsim/model, topsim/framework, topsim/duration-s or topsim/iterations say\n"
    "what Kubernetes does not (defaults: resnet50, pytorch (tensorflow for TFJob), 3600 s, each\n"
    "noted); metadata.creationTimestamp gives the arrival. Other kinds are listed as skipped.\n"
    "Writes {\"kind\": \"jobs\", \"jobs\": [...]}: a scenario's workload, inline or as\n"
    "\"workload\": \"jobs.json\".\n"
    "A file of `sacct --allocations --parsable2 --format=JobID,JobName,Submit,Start,End,Elapsed,\n"
    "AllocTRES,NNodes,State` output is read as Slurm records instead: each allocation that ran\n"
    "with gres/gpu is a job of NNodes pods. A Helios cluster_log.csv (header job_id,...,gpu_num,\n"
    "...) is read the same way. Formats: docs/importers.md.",
    [] { return std::make_unique<ImportJobs>(); },
}};

}  // namespace
}  // namespace topsim::cli
