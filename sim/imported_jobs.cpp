#include "sim/imported_jobs.h"

#include <filesystem>
#include <fstream>

#include "sim/input_file.h"

namespace topsim {

RecordFormat record_format(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return RecordFormat::Manifests;
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".yaml" || ext == ".yml") return RecordFormat::Manifests;
  if (!check_input_file(path).ok()) return RecordFormat::Json;  // the reader says what is wrong
  std::ifstream in(path);
  std::string header;
  std::getline(in, header);
  if (header.find('|') != std::string::npos && header.find("JobID") != std::string::npos) return RecordFormat::Sacct;
  if (header.rfind("job_id,", 0) == 0 && header.find("gpu_num") != std::string::npos) return RecordFormat::Helios;
  return RecordFormat::Json;
}

}  // namespace topsim
