// INTERNAL to formats/jobs: the entries an importer builds (formats/jobs/imported_jobs.h), as the
// native job list's JSON objects, in the order the importer found them.
#pragma once

#include <nlohmann/json.hpp>

namespace topsim {

struct JobListEntries {
  nlohmann::ordered_json jobs = nlohmann::ordered_json::array();
};

}  // namespace topsim
