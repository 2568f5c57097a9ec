#include "formats/jobs/sacct.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "formats/jobs/job_list_entries.h"
#include "formats/jobs/sacct_table.h"
#include "util/input_file.h"
#include "util/one_line.h"
#include "util/text.h"

namespace topsim {
namespace {

constexpr const char* kDefaultModel = "resnet50";
const char* const kRequired[] = {"JobID", "Submit", "Start", "End", "AllocTRES", "NNodes"};

// A time that is not one: Slurm's "Unknown" / "None" (never started, still running) or empty.
bool no_time(std::string_view text) { return text.empty() || text == "Unknown" || text == "None"; }

bool leap_year(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// sacct's time format, "2024-05-01T10:00:00", or Helios' "2020-06-09 18:41:01" (local times;
// only differences are used), in seconds; nullopt for anything else, calendar dates that do
// not exist (month 13, 30 February) included.
std::optional<int64_t> sacct_time(std::string_view text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, used = 0;
  const std::string t(text);
  char sep = 0;
  if (std::sscanf(t.c_str(), "%4d-%2d-%2d%c%2d:%2d:%2d%n", &y, &mo, &d, &sep, &h, &mi, &s, &used) != 7 ||
      used != static_cast<int>(t.size()) || (sep != 'T' && sep != ' '))
    return std::nullopt;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > kDays[mo - 1] + (mo == 2 && leap_year(y) ? 1 : 0) || h < 0 || h > 23 ||
      mi < 0 || mi > 59 || s < 0 || s > 59)
    return std::nullopt;
  std::tm tm{};
  tm.tm_year = y - 1900, tm.tm_mon = mo - 1, tm.tm_mday = d, tm.tm_hour = h, tm.tm_min = mi, tm.tm_sec = s;
  return static_cast<int64_t>(timegm(&tm));
}

// Start and end of a record: nullopt when it never started or has not ended (no time given);
// an error naming the column when a time is given that is not one.
Expected<std::optional<std::pair<int64_t, int64_t>>> run_times(const std::string& at, const char* start_column,
                                                               std::string_view start_text, const char* end_column,
                                                               std::string_view end_text, const char* example) {
  if (no_time(start_text) || no_time(end_text)) return std::optional<std::pair<int64_t, int64_t>>();
  const auto start = sacct_time(start_text), end = sacct_time(end_text);
  if (!start)
    return Error{at + ": column " + start_column + ": '" + quoted_value(start_text) + "' is not a time (" + example + ")"};
  if (!end) return Error{at + ": column " + end_column + ": '" + quoted_value(end_text) + "' is not a time (" + example + ")"};
  return std::optional<std::pair<int64_t, int64_t>>(std::make_pair(*start, *end));
}

// A non-negative integer field, nullopt otherwise.
std::optional<int64_t> integer(std::string_view text) {
  int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// A MIG profile in a GPU type: "a100_3g.20gb", "1g.5gb" (<slices>g.<memory>gb, NVIDIA MIG user guide).
bool mig_type(std::string_view type) {
  const size_t g = type.find("g.");
  return g != std::string_view::npos && g > 0 && std::isdigit(static_cast<unsigned char>(type[g - 1])) && type.size() > 2 &&
         type.substr(type.size() - 2) == "gb";
}

// gres/gpu=N (or gres/gpu:<type>=N) in an AllocTRES list "billing=8,cpu=8,gres/gpu=8,mem=64G,node=1";
// the MIG profiles among the types are added to `mig`.
std::optional<int64_t> tres_gpus(std::string_view tres, std::set<std::string>& mig) {
  int64_t total = 0;
  bool found = false;
  size_t start = 0;
  while (start <= tres.size()) {
    const size_t comma = tres.find(',', start);
    const std::string_view item = tres.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    const size_t eq = item.find('=');
    const std::string_view key = item.substr(0, eq);
    if (eq != std::string_view::npos && (key == "gres/gpu" || key.rfind("gres/gpu:", 0) == 0)) {
      int64_t n = 0;
      const std::string_view value = item.substr(eq + 1);
      const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || ptr != value.data() + value.size() || n < 0) return std::nullopt;
      if (key.rfind("gres/gpu:", 0) == 0 && mig_type(key.substr(9))) mig.insert(std::string(key.substr(9)));
      // gres/gpu and gres/gpu:<type> both count the same GPUs: keep the untyped total when given.
      if (key == "gres/gpu")
        total = n, found = true;
      else if (!found)
        total += n;
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return total;
}

// What a record names of its tenant, "" for none: sacct's Account and QOS, Helios' vc.
struct RecordTenant {
  std::string_view queue;
  std::string_view priority_class;
};

// Allocations that ran, as jobs: NNodes pods sharing the GPUs, arriving at submit (relative to the
// earliest), running end - start. Shared by the sacct and Helios readers.
class RecordJobs {
 public:
  // Errors name `at` (file:line) and the column.
  Status add(const std::string& at, std::string name, RecordTenant tenant, int64_t submit, int64_t start, int64_t end,
             int64_t gpus, int64_t nodes) {
    if (end < start) return Error{at + ": the job ends before it starts"};
    if (gpus == 0) return ++no_gpu_, Status::success();
    if (nodes < 1 || nodes > 65535) return Error{at + ": " + std::to_string(nodes) + " nodes is not a node count (1-65535)"};
    if (gpus < 0 || gpus > 65535 * nodes) return Error{at + ": " + std::to_string(gpus) + " GPUs is out of range"};
    nlohmann::ordered_json job = {{"name", std::move(name)}};
    if (!tenant.queue.empty()) job["queue"] = tenant.queue;
    if (!tenant.priority_class.empty()) job["priority_class"] = tenant.priority_class;
    if (gpus % nodes == 0) {
      job["workers"] = nodes;
      job["gpus_per_worker"] = gpus / nodes;
    } else {  // uneven: the remainder on the first nodes
      std::vector<int64_t> pods(static_cast<size_t>(nodes), gpus / nodes);
      for (int64_t k = 0; k < gpus % nodes; ++k) ++pods[static_cast<size_t>(k)];
      job["pods"] = pods;
    }
    job["model"] = kDefaultModel;
    job["duration_s"] = std::max<int64_t>(1, end - start);
    submits_.push_back(submit);
    out_.entries->jobs.push_back(std::move(job));
    out_.origins.push_back(at + " (job " + out_.entries->jobs.back()["name"].get<std::string>() + ")");
    return Status::success();
  }
  void did_not_run() { ++not_run_; }

  Expected<ImportedJobs> finish(const std::string& source, const char* tool) {
    if (out_.entries->jobs.empty())
      return Error{source + ": no job that ran with GPUs (" + std::to_string(not_run_) + " did not run, " +
                   std::to_string(no_gpu_) + " without GPUs)"};
    const int64_t first = *std::min_element(submits_.begin(), submits_.end());
    for (size_t j = 0; j < submits_.size(); ++j) out_.entries->jobs[j]["submit_s"] = submits_[j] - first;
    out_.notes.push_back(std::string(tool) + " does not say what trains: every job trains " + kDefaultModel);
    if (not_run_ > 0) out_.skipped.push_back(counted(not_run_, "job") + " that never started or had not ended");
    if (no_gpu_ > 0) out_.skipped.push_back(counted(no_gpu_, "job") + " without GPUs");
    return std::move(out_);
  }

 private:
  ImportedJobs out_;
  std::vector<int64_t> submits_;
  size_t not_run_ = 0, no_gpu_ = 0;
};

// The next non-empty line of `in` into `line`, its trailing CR removed, counting lines in
// `number`; false at the end of the input.
bool next_line(std::istream& in, std::string& line, int64_t& number) {
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) return true;
  }
  return false;
}

// Column name -> index of a header row.
std::map<std::string, size_t> column_index(const std::vector<std::string>& header) {
  std::map<std::string, size_t> column;
  for (size_t i = 0; i < header.size(); ++i) column[header[i]] = i;
  return column;
}

}  // namespace

Expected<ImportedJobs> read_sacct(std::istream& in, std::string_view source, const std::string& format) {
  const std::string src(source);
  auto table = SacctTable::open(in, src, format);
  if (!table) return table.error();
  const std::vector<std::string> required(std::begin(kRequired), std::end(kRequired));
  if (const std::vector<std::string> missing = table->missing(required); !missing.empty())
    return Error{table->header_where() + ": sacct output without the column" + (missing.size() > 1 ? "s " : " ") +
                 join(missing, ", ") + " (JobID, Submit, Start, End, AllocTRES and NNodes are read): run " + kSacctCommand};
  RecordJobs jobs;
  std::set<std::string> mig_types;
  while (true) {
    auto row = table->next_row();
    if (!row) return row.error();
    if (!*row) break;
    const std::vector<std::string>& fields = **row;
    const std::string at = table->where();
    auto field = [&](const char* name) { return std::string_view(fields[*table->column(name)]); };
    const std::string id(field("JobID"));
    if (id.find('.') != std::string::npos) continue;  // a job step: --allocations leaves them out
    if (Status whole = table->check_whole(fields, required); !whole) return whole.error();
    const auto submit = sacct_time(field("Submit"));
    if (!submit)
      return Error{at + ": column Submit: '" + quoted_value(field("Submit")) + "' is not a time (2024-05-01T10:00:00)"};
    const auto times = run_times(at, "Start", field("Start"), "End", field("End"), "2024-05-01T10:00:00");
    if (!times) return times.error();
    if (!*times) {  // never started (PENDING, CANCELLED before start) or still running
      jobs.did_not_run();
      continue;
    }
    const auto [start, end] = **times;
    const auto gpus = tres_gpus(field("AllocTRES"), mig_types);
    if (!gpus)
      return Error{at + ": column AllocTRES: a gres/gpu count that is not a number in '" + quoted_value(field("AllocTRES")) +
                   "'"};
    const auto nodes = integer(field("NNodes"));
    if (!nodes) return Error{at + ": column NNodes: '" + quoted_value(field("NNodes")) + "' is not a node count (1-65535)"};
    const bool named = table->column("JobName") && !field("JobName").empty();
    const std::string name = named ? id + "-" + std::string(field("JobName")) : id;
    auto optional_field = [&](const char* key) { return table->column(key) ? field(key) : std::string_view(); };
    const RecordTenant tenant{optional_field("Account"), optional_field("QOS")};
    if (Status s = jobs.add(at, name, tenant, *submit, start, end, *gpus, *nodes); !s) return s.error();
  }
  auto imported = jobs.finish(src, "sacct");
  if (imported && !mig_types.empty())
    imported->notes.push_back("MIG slices (" + join(std::vector<std::string>(mig_types.begin(), mig_types.end()), ", ") +
                              ") are counted as whole GPUs, as Slurm's gres/gpu counts them");
  return imported;
}

Expected<ImportedJobs> read_helios(std::istream& in, std::string_view source) {
  const std::string src(source);
  std::string line;
  int64_t number = 1;
  if (!std::getline(in, line)) return Error{src + ":1: empty: expected the Helios cluster_log.csv header"};
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const std::vector<std::string_view> names = split_fields(line, ',');
  const std::vector<std::string> header(names.begin(), names.end());
  const std::map<std::string, size_t> column = column_index(header);
  for (const char* name : {"job_id", "gpu_num", "node_num", "submit_time", "start_time", "end_time"})
    if (!column.count(name)) return Error{src + ":1: no " + std::string(name) + " column: expected a Helios cluster_log.csv"};
  RecordJobs jobs;
  while (next_line(in, line, number)) {
    const std::vector<std::string_view> fields = split_fields(line, ',');
    const std::string at = src + ":" + std::to_string(number);
    if (fields.size() != header.size())
      return Error{at + ": " + std::to_string(fields.size()) + " fields, the header has " + std::to_string(header.size())};
    auto field = [&](const char* name) { return fields[column.at(name)]; };
    const auto submit = sacct_time(field("submit_time"));
    if (!submit)
      return Error{at + ": column submit_time: '" + std::string(field("submit_time")) + "' is not a time (2020-06-09 18:41:01)"};
    const auto times = run_times(at, "start_time", field("start_time"), "end_time", field("end_time"), "2020-06-09 18:41:01");
    if (!times) return times.error();
    if (!*times) {
      jobs.did_not_run();
      continue;
    }
    const auto [start, end] = **times;
    const auto gpus = integer(field("gpu_num"));
    if (!gpus) return Error{at + ": column gpu_num: '" + std::string(field("gpu_num")) + "' is not a GPU count"};
    const auto nodes = integer(field("node_num"));
    if (!nodes) return Error{at + ": column node_num: '" + std::string(field("node_num")) + "' is not a node count"};
    if (*gpus > 0 && *nodes == 0) return Error{at + ": column node_num: 0 is not a node count (1-65535)"};
    const RecordTenant tenant{column.count("vc") ? field("vc") : std::string_view(), {}};
    if (Status s = jobs.add(at, std::string(field("job_id")), tenant, *submit, start, end, *gpus, std::max<int64_t>(1, *nodes));
        !s)
      return s.error();
  }
  if (in.bad()) return Error{src + ":" + std::to_string(number) + ": read error"};
  return jobs.finish(src, "Helios");
}

Expected<ImportedJobs> load_sacct(const std::string& path, const std::string& format) {
  auto in = open_input_file(path);
  if (!in) return in.error();
  return read_sacct(*in, path, format);
}

Expected<ImportedJobs> load_helios(const std::string& path) {
  auto in = open_input_file(path);
  if (!in) return in.error();
  return read_helios(*in, path);
}

}  // namespace topsim
