#include "formats/jobs/imported_jobs.h"

#include <filesystem>
#include <fstream>

#include "formats/jobs/job_list_entries.h"
#include "formats/jobs/job_list_json.h"
#include "formats/jobs/kube_manifests.h"
#include "formats/jobs/sacct.h"
#include "formats/support/json_reader.h"
#include "util/input_file.h"

namespace topsim {

ImportedJobs::ImportedJobs() : entries(std::make_shared<JobListEntries>()) {}

size_t ImportedJobs::size() const { return entries->jobs.size(); }

namespace {

// The first line of `in` that is neither blank nor a '#' comment, "" at the end.
std::string first_content_line(std::istream& in) {
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line[first] != '#') return line;
  }
  return "";
}

bool only_dashes(const std::string& line) {
  return line.find('-') != std::string::npos && line.find_first_not_of("- ") == std::string::npos;
}

}  // namespace

RecordFormat record_format(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return RecordFormat::Manifests;
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".yaml" || ext == ".yml") return RecordFormat::Manifests;
  if (!check_input_file(path).ok()) return RecordFormat::Json;  // the reader says what is wrong
  std::ifstream in(path);
  const std::string header = first_content_line(in);
  const size_t first = header.find_first_not_of(" \t");
  const bool json = first != std::string::npos && (header[first] == '{' || header[first] == '[');
  if (!json && header.find('|') != std::string::npos) return RecordFormat::Sacct;
  // One column of --noheader output holding a TRES list ("billing=8,cpu=8,gres/gpu=8,mem=64G,node=1").
  if (!json && header.find('=') != std::string::npos &&
      (header.find("gres/") != std::string::npos || header.find("cpu=") != std::string::npos))
    return RecordFormat::Sacct;
  if (header.rfind("job_id,", 0) == 0 && header.find("gpu_num") != std::string::npos) return RecordFormat::Helios;
  if (!json && only_dashes(first_content_line(in))) return RecordFormat::Sacct;  // sacct's fixed-width table
  return RecordFormat::Json;
}

Expected<ImportedJobs> load_job_records(const std::vector<std::string>& paths, RecordFormat format,
                                        const ImportOptions& options) {
  if (format == RecordFormat::Sacct) return load_sacct(paths.front(), options.sacct_format);
  if (format == RecordFormat::Helios) return load_helios(paths.front());
  return load_kube_manifests(paths, options);
}

Expected<Workload> imported_workload(const ImportedJobs& imported, std::string_view pointer) {
  const nlohmann::json jobs = imported.entries->jobs;
  auto workload = read_job_list(JsonAt{&jobs, std::string(pointer)}, "manifests");
  if (workload) {
    // skipped_jobs names some of `skipped`'s lines, in the same order: one pass pairs them.
    auto named = imported.skipped_jobs.begin();
    for (const std::string& line : imported.skipped) {
      SkippedEntries entries{line, {}};
      for (; named != imported.skipped_jobs.end() && named->second == line; ++named) entries.names.push_back(named->first);
      workload->skipped.push_back(std::move(entries));
    }
    return workload;
  }
  // "manifests: <pointer>/<entry>/<field>: what" -> "<where the entry was read>: /<field>: what".
  const std::string& message = workload.error().message;
  const std::string prefix = "manifests: " + std::string(pointer) + "/";
  if (message.rfind(prefix, 0) != 0) return workload;
  size_t end = prefix.size();
  while (end < message.size() && message[end] >= '0' && message[end] <= '9') ++end;
  if (end == prefix.size() || end - prefix.size() > 9) return workload;
  const size_t entry = std::stoul(message.substr(prefix.size(), end - prefix.size()));
  if (entry >= imported.origins.size()) return workload;
  const std::string rest = message.substr(end);
  return Error{imported.origins[entry] + ": " + (rest.rfind(": ", 0) == 0 ? rest.substr(2) : rest)};
}

std::string render_job_list(const ImportedJobs& imported) {
  const nlohmann::ordered_json workload = {{"kind", "jobs"}, {"jobs", imported.entries->jobs}};
  return workload.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace topsim
