#include "sim/job.h"

namespace topsim {

const char* framework_name(Framework framework) {
  switch (framework) {
    case Framework::TensorFlow: return "tensorflow";
    case Framework::PyTorch: return "pytorch";
  }
  return "?";
}

std::string Workload::job_name(uint32_t id) const {
  const auto it = extras.find(id);
  if (it != extras.end() && !it->second.name.empty()) return it->second.name;
  return "job-" + std::to_string(id);
}

}  // namespace topsim
