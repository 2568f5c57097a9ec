#include "formats/traces/philly_trace.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "formats/support/csv.h"
#include "sim/tenant_names.h"
#include "util/input_file.h"
#include "util/number_format.h"

namespace topsim {
namespace {

constexpr std::string_view kHeader = "timestamp,duration,num_gpus,gpu_time,cluster";
constexpr size_t kColumns = 5;
constexpr int64_t kMaxGpus = 65535;     // JobSpec stores pods and GPUs per pod as uint16
constexpr double kMaxDurationS = 1e12;  // ~31,700 years: far above any trace, far below int64 ms

// A field as shown in an error, quoted and shortened.
std::string quoted(std::string_view field) {
  return "'" + std::string(field.size() > 40 ? field.substr(0, 37) : field) + (field.size() > 40 ? "...'" : "'");
}

// "YYYY-MM-DD HH:MM:SS" as Unix seconds (UTC); nullopt unless the text is exactly a valid one.
std::optional<int64_t> parse_timestamp_s(std::string_view text) {
  if (text.size() != 19 || text[4] != '-' || text[7] != '-' || text[10] != ' ' || text[13] != ':' || text[16] != ':')
    return std::nullopt;
  const auto number = [&](size_t at, size_t length) { return parse_csv_int(text.substr(at, length)); };
  const auto year = number(0, 4), month = number(5, 2), day = number(8, 2);
  const auto hour = number(11, 2), minute = number(14, 2), second = number(17, 2);
  if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year(static_cast<int>(*year)),
                                         std::chrono::month(static_cast<unsigned>(*month)),
                                         std::chrono::day(static_cast<unsigned>(*day))};
  if (!date.ok() || *hour > 23 || *minute > 59 || *second > 59) return std::nullopt;
  const int64_t days = std::chrono::sys_days(date).time_since_epoch().count();
  return days * 86400 + *hour * 3600 + *minute * 60 + *second;
}

Status check_header(CsvLines& lines) {
  if (!lines.next()) return Error{lines.source() + ": empty file, expected the header '" + std::string(kHeader) + "'"};
  std::string_view header = lines.line();
  if (header.substr(0, 3) == "\xEF\xBB\xBF") header.remove_prefix(3);  // UTF-8 byte order mark
  if (header != kHeader) return lines.error("bad header " + quoted(header) + " (expected '" + std::string(kHeader) + "')");
  return Status::success();
}

// One row as a job whose submit_ms still holds the Unix time in ms (rebased after sorting) and
// whose queue indexes `queues` (renumbered after sorting).
Expected<JobSpec> parse_row(const CsvLines& lines, int gpus_per_node, NameTable& queues) {
  const auto& fields = lines.fields();
  if (fields.size() != kColumns)
    return lines.error("expected " + std::to_string(kColumns) + " fields (" + std::string(kHeader) + "), found " +
                       std::to_string(fields.size()));
  const auto timestamp_s = parse_timestamp_s(fields[0]);
  if (!timestamp_s) return lines.column_error("timestamp", quoted(fields[0]) + " is not a timestamp (YYYY-MM-DD HH:MM:SS)");
  const auto duration_s = parse_csv_double(fields[1]);
  if (!duration_s) return lines.column_error("duration", quoted(fields[1]) + " is not a number");
  if (*duration_s < 0) return lines.column_error("duration", quoted(fields[1]) + " is negative");
  if (*duration_s > kMaxDurationS) return lines.column_error("duration", quoted(fields[1]) + " is too large");
  const auto num_gpus = parse_csv_int(fields[2]);
  if (!num_gpus) return lines.column_error("num_gpus", quoted(fields[2]) + " is not an integer");
  if (*num_gpus < 1 || *num_gpus > kMaxGpus)
    return lines.column_error("num_gpus", quoted(fields[2]) + " is out of range (1-" + std::to_string(kMaxGpus) + ")");
  JobSpec job;
  job.submit_ms = *timestamp_s * 1000;
  job.ideal_duration_ms = std::llround(*duration_s * 1000.0);
  const PodShape shape = gang_shape(static_cast<int>(*num_gpus), gpus_per_node);
  job.workers = shape.workers;
  job.gpus_per_worker = shape.gpus_per_worker;
  if (!fields[4].empty()) {
    const auto queue = queues.index(fields[4]);
    if (!queue) return lines.column_error("cluster", too_many_names("queues (virtual clusters)", queues.limit()));
    job.queue = static_cast<uint16_t>(*queue);
  }
  return job;
}

// Sorts by (time, line), keeps the first max_jobs, rebases and scales time, numbers the jobs
// and draws what they train.
void finish_jobs(std::vector<JobSpec>& jobs, const PhillyOptions& options) {
  std::stable_sort(jobs.begin(), jobs.end(), [](const JobSpec& a, const JobSpec& b) { return a.submit_ms < b.submit_ms; });
  if (options.max_jobs > 0 && jobs.size() > options.max_jobs) jobs.resize(options.max_jobs);
  jobs.shrink_to_fit();
  const int64_t start_ms = jobs.empty() ? 0 : jobs.front().submit_ms;
  for (size_t i = 0; i < jobs.size(); ++i) {
    JobSpec& job = jobs[i];
    job.id = static_cast<uint32_t>(i);
    job.submit_ms = std::llround(static_cast<double>(job.submit_ms - start_ms) * options.arrival_time_scale);
  }
  draw_training(jobs, TrainingDraw(options.model_mix, options.tensorflow_share, options.reference_gpu), options.seed);
}

}  // namespace

Status validate(const PhillyOptions& options) {
  if (options.gpus_per_node < 1) return Error{"philly options: gpus_per_node must be >= 1"};
  if (!(options.arrival_time_scale > 0) || !std::isfinite(options.arrival_time_scale))
    return Error{"philly options: arrival_time_scale must be a positive number"};
  if (!(options.tensorflow_share >= 0 && options.tensorflow_share <= 1))
    return Error{"philly options: tensorflow_share must be within [0, 1]"};
  const Status mix = validate_model_mix(options.model_mix);
  if (!mix.ok()) return Error{"philly options: " + mix.error().message};
  return Status::success();
}

Expected<Workload> read_philly(std::istream& in, std::string_view source, const PhillyOptions& options) {
  if (const Status valid = validate(options); !valid.ok()) return valid.error();
  CsvLines lines(in, std::string(source));
  if (const Status header = check_header(lines); !header.ok()) return header.error();
  Workload workload;
  workload.source = std::string(source);
  NameTable queues(kMaxQueueNames);
  while (lines.next()) {
    Expected<JobSpec> job = parse_row(lines, options.gpus_per_node, queues);
    if (!job.ok()) return job.error();
    workload.jobs.push_back(job.value());
  }
  if (lines.read_failed()) return lines.error("read error after this line");
  if (!workload.jobs.empty()) {
    const auto [first, last] = std::minmax_element(workload.jobs.begin(), workload.jobs.end(),
                                                   [](const JobSpec& a, const JobSpec& b) { return a.submit_ms < b.submit_ms; });
    const double span_ms = static_cast<double>(last->submit_ms - first->submit_ms) * options.arrival_time_scale;
    if (span_ms > static_cast<double>(kMaxRunMs))
      return Error{std::string(source) + ": arrival_time_scale " + format_number(options.arrival_time_scale) +
                   " stretches the trace's arrivals over more than 10^15 ms (the longest time simulated)"};
  }
  finish_jobs(workload.jobs, options);
  set_tenant_names(workload, queues.names(), {});
  workload.llm_jobs = llm_mix_table(options.model_mix);
  return workload;
}

Expected<Workload> load_philly(const std::string& path, const PhillyOptions& options) {
  auto in = open_input_file(path);
  if (!in) return in.error();
  Expected<Workload> workload = read_philly(*in, path, options);
  if (workload.ok()) workload->source = std::filesystem::path(path).filename().string();
  return workload;
}

}  // namespace topsim
