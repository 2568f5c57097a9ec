#include "sim/job.h"

namespace topsim {

const char* framework_name(Framework framework) {
  return training_framework_name(framework).data();  // names are string literals
}

std::string Workload::job_name(uint32_t id) const {
  const auto it = extras.find(id);
  if (it != extras.end() && !it->second.name.empty()) return it->second.name;
  return "job-" + std::to_string(id);
}

}  // namespace topsim
