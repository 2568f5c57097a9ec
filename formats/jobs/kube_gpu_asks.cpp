#include "formats/jobs/kube_gpu_asks.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "formats/jobs/kube_yaml.h"
#include "formats/support/k8s_quantity.h"

namespace topsim {
namespace {

constexpr int64_t kMiB = 1024 * 1024;

void note_once(std::vector<std::string>& notes, std::string note) {
  if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(std::move(note));
}

bool plain_integer(const std::string& text) {
  return !text.empty() && text.size() <= 12 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A memory quantity in MiB, rounded up: with a suffix as Kubernetes reads it ("10240Mi", "2Gi");
// a plain number in `plain_mib` MiB per unit (0: a plain number is bytes, as a Kubernetes
// quantity is), with `plain_note` noted.
int64_t memory_mib(const std::string& text, const std::string& field, int64_t plain_mib, const std::string& plain_note,
                   std::vector<std::string>& notes) {
  if (plain_integer(text) && plain_mib > 0) {
    note_once(notes, plain_note);
    return std::stoll(text) * plain_mib;
  }
  auto bytes = parse_quantity(text);
  if (!bytes || *bytes < 0) throw ManifestFault{field + ": '" + text + "' is not a memory quantity such as 2Gi or 2048Mi"};
  if (plain_integer(text)) note_once(notes, plain_note);
  return (*bytes + kMiB - 1) / kMiB;
}

// A plain integer in [min, max] ("3000", "30"), as HAMi and KAI count MiB and percent.
int64_t plain_in(const std::string& text, const std::string& field, int64_t min, int64_t max, const char* what) {
  if (!plain_integer(text) || std::stoll(text) < min || std::stoll(text) > max)
    throw ManifestFault{field + ": '" + text + "' is not " + what};
  return std::stoll(text);
}

// The resources read above; anything else under these prefixes is an accelerator topsim does not
// model (NVIDIA's MIG and shared resources, AMD, Intel, Habana, AWS Neuron, Volcano's vGPU).
const char* const kRead[] = {"nvidia.com/gpu",      "aliyun.com/gpu",
                             "aliyun.com/gpu-mem",  "aliyun.com/gpu-core.percentage",
                             "nvidia.com/gpumem",   "nvidia.com/gpumem-percentage",
                             "nvidia.com/gpucores", "nvidia.com/priority"};
const char* const kAccelerators[] = {"nvidia.com/",           "amd.com/gpu",     "gpu.intel.com/", "habana.ai/",
                                     "aws.amazon.com/neuron", "volcano.sh/vgpu", "aliyun.com/gpu"};

void note_unmodelled(const YAML::Node& list, PodGpuAsk& ask) {
  if (!list || !list.IsMap()) return;
  for (const auto& pair : list) {
    if (!pair.first.IsScalar()) continue;
    const std::string& name = pair.first.Scalar();
    const bool read = std::find(std::begin(kRead), std::end(kRead), name) != std::end(kRead);
    const bool accelerator = std::any_of(std::begin(kAccelerators), std::end(kAccelerators),
                                         [&](const char* prefix) { return name.rfind(prefix, 0) == 0; });
    if (!read && accelerator && std::find(ask.unmodelled.begin(), ask.unmodelled.end(), name) == ask.unmodelled.end())
      ask.unmodelled.push_back(name);
  }
}

// The resources of one container (limits, else requests) added to `ask`.
void add_container(const YAML::Node& resources, const std::string& where, PodGpuAsk& ask, std::vector<std::string>& notes) {
  const YAML::Node list = child(resources, "limits") ? child(resources, "limits") : child(resources, "requests");
  const std::string at = where + (child(resources, "limits") ? ".limits." : ".requests.");
  const auto text = [&](const char* name) { return text_of(child(list, name), at + name); };
  note_unmodelled(list, ask);
  ask.gpus += count_of(child(list, "nvidia.com/gpu"), at + "nvidia.com/gpu", 0) +
              count_of(child(list, "aliyun.com/gpu"), at + "aliyun.com/gpu", 0);
  if (const std::string mem = text("aliyun.com/gpu-mem"); !mem.empty()) {
    // gpushare-device-plugin counts GiB by default, MiB when started with --memory-unit=MiB
    // (AliyunContainerService/gpushare-device-plugin, cmd/nvidia/main.go).
    ask.share_mib += memory_mib(mem, at + "aliyun.com/gpu-mem", 1024,
                                "aliyun.com/gpu-mem without a unit read as GiB (gpushare's default; a device plugin run with "
                                "--memory-unit=MiB counts MiB: write the quantity as e.g. 2048Mi)",
                                notes);
    ask.share_source = "aliyun.com/gpu-mem " + mem;
  }
  if (const std::string core = text("aliyun.com/gpu-core.percentage"); !core.empty())
    ask.share_core_percent += plain_in(core, at + "aliyun.com/gpu-core.percentage", 0, 100, "a percentage (0-100)");
  // HAMi (Project-HAMi/HAMi examples/nvidia): per card, MiB and percent.
  if (const std::string mem = text("nvidia.com/gpumem"); !mem.empty()) {
    ask.share_mib += plain_in(mem, at + "nvidia.com/gpumem", 1, 1 << 24, "a number of MiB (HAMi counts gpumem in MiB)");
    ask.share_source = "HAMi nvidia.com/gpumem " + mem;
  }
  if (const std::string percent = text("nvidia.com/gpumem-percentage"); !percent.empty()) {
    ask.share_milli += 10 * plain_in(percent, at + "nvidia.com/gpumem-percentage", 1, 100, "a percentage (1-100)");
    ask.share_source = "HAMi nvidia.com/gpumem-percentage " + percent;
  }
  if (const std::string cores = text("nvidia.com/gpucores"); !cores.empty()) {
    ask.share_core_percent += plain_in(cores, at + "nvidia.com/gpucores", 1, 100, "a percentage (1-100)");
    if (ask.share_source.empty()) ask.share_source = "HAMi nvidia.com/gpucores " + cores;
  }
}

// The annotation `key` of the pod template, else of the workload object; "" when neither has it.
std::string annotation(const YAML::Node& pod, const YAML::Node& object, const char* key, const std::string& field) {
  if (const YAML::Node n = child(pod, key)) return text_of(n, field + ".metadata.annotations." + key);
  return text_of(child(object, key), std::string("metadata.annotations.") + key);
}

// KAI-Scheduler's annotations (docs/gpu-sharing): gpu-fraction, a share of one card's memory
// (0 < f <= 1), and gpu-memory, MiB.
void add_kai(const YAML::Node& pod, const YAML::Node& object, const std::string& field, PodGpuAsk& ask) {
  if (const std::string fraction = annotation(pod, object, "gpu-fraction", field); !fraction.empty()) {
    double f = 0;
    const auto [ptr, ec] = std::from_chars(fraction.data(), fraction.data() + fraction.size(), f);
    if (ec != std::errc() || ptr != fraction.data() + fraction.size() || !(f > 0) || f > 1)
      throw ManifestFault{"gpu-fraction: '" + fraction + "' is not a fraction of a card in (0, 1]"};
    ask.share_milli = std::llround(f * 1000);
    ask.share_source = "KAI gpu-fraction " + fraction;
  }
  if (const std::string mib = annotation(pod, object, "gpu-memory", field); !mib.empty()) {
    ask.share_mib = plain_in(mib, "gpu-memory", 1, 1 << 24, "a number of MiB (KAI counts gpu-memory in MiB)");
    ask.share_source = "KAI gpu-memory " + mib;
  }
}

// The FGD simulator's and open-simulator's annotations: alibabacloud.com/gpu-milli thousandths of
// each of alibabacloud.com/gpu-count cards (1000: whole cards), alibabacloud.com/gpu-mem bytes.
void add_alibabacloud(const YAML::Node& pod, const YAML::Node& object, const std::string& field, PodGpuAsk& ask,
                      std::vector<std::string>& notes) {
  const std::string milli = annotation(pod, object, "alibabacloud.com/gpu-milli", field);
  const std::string mem = annotation(pod, object, "alibabacloud.com/gpu-mem", field);
  if (milli.empty() && mem.empty()) return;
  const std::string count = annotation(pod, object, "alibabacloud.com/gpu-count", field);
  const int64_t cards = count.empty() ? 1 : plain_in(count, "alibabacloud.com/gpu-count", 1, 65535, "a card count (1-65535)");
  if (!milli.empty()) {
    const int64_t m = plain_in(milli, "alibabacloud.com/gpu-milli", 1, 1000, "thousandths of a card (1-1000)");
    if (m == 1000) return void(ask.gpus += cards);
    ask.share_milli = m;
    ask.share_source = "alibabacloud.com/gpu-milli " + milli;
  }
  if (!mem.empty()) {
    ask.share_mib = memory_mib(mem, "alibabacloud.com/gpu-mem", 0,
                               "alibabacloud.com/gpu-mem without a unit read as bytes (open-simulator parses it as a "
                               "Kubernetes quantity)",
                               notes);
    ask.share_source = "alibabacloud.com/gpu-mem " + mem;
  }
  ask.share_cards = cards;
}

}  // namespace

PodGpuAsk read_pod_gpu_ask(const YAML::Node& spec, const YAML::Node& annotations, const YAML::Node& object_annotations,
                           const std::string& field, std::vector<std::string>& notes) {
  PodGpuAsk ask;
  if (!spec || !spec.IsMap()) throw ManifestFault{field + ": missing pod spec"};
  const YAML::Node containers = child(spec, "containers");
  if (!containers || !containers.IsSequence()) throw ManifestFault{field + ".containers: must be a list"};
  for (size_t c = 0; c < containers.size(); ++c)
    if (const YAML::Node resources = child(containers[c], "resources"))
      add_container(resources, field + ".containers[" + std::to_string(c) + "].resources", ask, notes);
  // HAMi: nvidia.com/gpu counts the cards a memory or compute share spans.
  if (ask.is_share() && ask.gpus > 0 && (ask.share_source.rfind("HAMi", 0) == 0)) ask.share_cards = ask.gpus, ask.gpus = 0;
  add_kai(annotations, object_annotations, field, ask);
  add_alibabacloud(annotations, object_annotations, field, ask, notes);
  return ask;
}

}  // namespace topsim
