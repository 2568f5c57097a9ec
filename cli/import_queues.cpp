// `topsim import queues PATH [-o FILE]`: what topsim understands of a folder of Kueue and KAI
// queue objects (formats/queues/queue_yaml.h), rendered by reports/queue_config_report.h.
#include "cli/command_table.h"
#include "cli/output_file.h"
#include "formats/queues/queue_yaml.h"
#include "reports/queue_config_report.h"

namespace topsim::cli {
namespace {

class ImportQueues : public Command {
 public:
  void declare(OptionSet& options) override {
    options.argument("path", &input_);
    options.visible.add_options()("output,o", po::value(&output_)->default_value("-")->value_name("PATH"),
                                  "where to write the description ('-', the default: stdout)");
  }

  Status finish(const po::variables_map&) override {
    if (input_.empty()) return Error{"give a folder of queue objects (YAML) or one YAML file"};
    return {};
  }

  Outcome execute(Streams io) override {
    if (output_ != "-")
      if (Status s = check_output_path(output_); !s) return Outcome::bad_input(s.error().message);
    auto config = read_queue_config(input_);
    if (!config) return Outcome::failed(config.error());
    if (Status s = write_output(output_, render_queue_config(*config), io.out); !s) return Outcome::bad_input(s.error().message);
    if (output_ != "-") io.out << "queue configuration -> " << output_ << "\n";
    return Outcome::ok();
  }

 private:
  std::string input_;
  std::string output_ = "-";
};

const Registrar registered{{
    "import queues",
    "read Kueue and KAI queue objects (ClusterQueues, cohorts, quotas, priorities) and show what topsim understood",
    "<folder|file.yaml> [-o <file>]",
    "Reads every *.yaml and *.yml file under the folder (subfolders too, sorted; names starting\n"
    "with '.' left out), several documents per file, `kind: List` included: Kueue ClusterQueue,\n"
    "Cohort, LocalQueue, ResourceFlavor and WorkloadPriorityClass (kueue.x-k8s.io v1beta1 and\n"
    "v1beta2; Cohort also v1alpha1), PriorityClass (scheduling.k8s.io/v1), Kueue's Configuration\n"
    "(config.kueue.x-k8s.io: Fair Sharing on or off), KAI-Scheduler Queue (scheduling.run.ai/v2)\n"
    "and SchedulingShard (kai.scheduler/v1: kValue, time-aware fairness, min runtime defaults).\n"
    "Other objects are skipped and counted by kind. Prints the cohort tree with each ClusterQueue's\n"
    "nominal quota, borrowing and lending limits per flavor and resource (GPUs as cards, cpu in\n"
    "cores, memory in Gi), the LocalQueues, the priority classes, the KAI queue tree, the KAI\n"
    "scheduler's settings and the skipped kinds. A field topsim does not know, a malformed quantity, a reference to a missing\n"
    "object or a cycle of parents is an error naming the file, line, object and field.\n"
    "Formats: docs/tenancy.md.",
    [] { return std::make_unique<ImportQueues>(); },
}};

}  // namespace
}  // namespace topsim::cli
