#include "formats/traces/alibaba_trace.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <istream>
#include <limits>

#include "core/node_model.h"
#include "util/input_file.h"
#include "util/text.h"

namespace topsim {
namespace {

constexpr std::array<std::string_view, 5> kNodeColumns = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};
constexpr std::array<std::string_view, 11> kPodColumns = {"name",          "cpu_milli",     "memory_mib",    "num_gpu",
                                                          "gpu_milli",     "gpu_spec",      "qos",           "pod_phase",
                                                          "creation_time", "deletion_time", "scheduled_time"};
constexpr size_t kShortPodColumns = 5;  // the multigpu* variants

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    fields.push_back(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) return fields;
    start = comma + 1;
  }
}

std::string known_models() {
  return join(kAlibabaGpuModels, ",", [](std::string_view model) { return std::string(model); });
}

// One row being parsed: errors name the source, the line and the column.
class Row {
 public:
  Row(std::string_view source, int64_t line, const std::string_view* columns, std::vector<std::string_view> fields)
      : source_(source), line_(line), columns_(columns), fields_(std::move(fields)) {}

  Error error(size_t column, const std::string& what) const {
    return Error{prefix() + "column " + std::string(columns_[column]) + ": " + what};
  }
  std::string prefix() const { return std::string(source_) + ":" + std::to_string(line_) + ": "; }
  std::string_view text(size_t column) const { return fields_[column]; }

  // A non-negative integer; `allow_empty` maps an empty field to -1.
  Expected<int64_t> number(size_t column, bool allow_empty = false) const {
    const std::string_view field = fields_[column];
    if (field.empty()) {
      if (allow_empty) return int64_t{-1};
      return error(column, "empty, expected a number");
    }
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
    if (ec == std::errc::result_out_of_range) return error(column, "'" + std::string(field) + "' is out of range");
    if (ec != std::errc() || end != field.data() + field.size()) {
      return error(column, "'" + std::string(field) + "' is not a number");
    }
    if (value < 0) return error(column, std::string(field) + " is negative");
    return value;
  }

  Expected<int> small_number(size_t column) const {
    auto value = number(column);
    if (!value) return value.error();
    if (*value > std::numeric_limits<int>::max()) return error(column, std::to_string(*value) + " is out of range");
    return static_cast<int>(*value);
  }

 private:
  std::string_view source_;
  int64_t line_;
  const std::string_view* columns_;
  std::vector<std::string_view> fields_;
};

// Checks the header against `columns` (all, or the first `min_columns` when shorter);
// returns how many columns the file has.
Expected<size_t> check_header(std::string_view source, std::string_view header, const std::string_view* columns,
                              size_t all_columns, size_t min_columns) {
  const std::vector<std::string_view> fields = split_fields(header);
  const std::string where = std::string(source) + ":1: header: ";
  const std::string expected = " (expected " +
                               join(std::vector<std::string_view>(columns, columns + all_columns), ",",
                                    [](std::string_view c) { return std::string(c); }) +
                               (min_columns < all_columns ? ", or its first " + std::to_string(min_columns) + " columns" : "") +
                               ")";
  for (size_t i = 0; i < all_columns && i < fields.size(); ++i) {
    if (fields[i] == columns[i]) continue;
    for (size_t j = i + 1; j < fields.size(); ++j) {
      if (fields[j] == columns[i]) return Error{where + "unexpected column '" + std::string(fields[i]) + "'" + expected};
    }
    return Error{where + "missing column " + std::string(columns[i]) + expected};
  }
  if (fields.size() == all_columns || fields.size() == min_columns) return fields.size();
  if (fields.size() > all_columns)
    return Error{where + "unexpected column '" + std::string(fields[all_columns]) + "'" + expected};
  return Error{where + "missing column " + std::string(columns[fields.size()]) + expected};
}

// Splits a data line and checks its field count against the header's.
Expected<Row> make_row(std::string_view source, int64_t line_number, std::string_view line, const std::string_view* columns,
                       size_t count) {
  std::vector<std::string_view> fields = split_fields(line);
  Row row(source, line_number, columns, {});
  if (fields.size() < count) {
    return Error{row.prefix() + "column " + std::string(columns[fields.size()]) + ": missing (the row has " +
                 std::to_string(fields.size()) + " of " + std::to_string(count) + " fields)"};
  }
  if (fields.size() > count) {
    return Error{row.prefix() + std::to_string(fields.size()) + " fields, expected " + std::to_string(count)};
  }
  return Row(source, line_number, columns, std::move(fields));
}

Expected<uint32_t> parse_gpu_spec(const Row& row, size_t column) {
  const std::string_view spec = row.text(column);
  if (spec.empty()) return uint32_t{0};
  uint32_t mask = 0;
  size_t start = 0;
  while (start <= spec.size()) {
    const size_t bar = spec.find('|', start);
    const std::string_view model = spec.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start);
    const std::optional<int> type = alibaba_gpu_type(model);
    if (!type) return row.error(column, "unknown GPU model '" + std::string(model) + "' (known: " + known_models() + ")");
    mask |= 1u << *type;
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return mask;
}

// The columns node and pod rows share: name, cpu_milli, memory_mib and a GPU count.
template <class Record>
Status parse_common(const Row& row, Record& record, int& gpu_count) {
  record.name = std::string(row.text(0));
  auto cpu = row.number(1);
  if (!cpu) return cpu.error();
  auto memory = row.number(2);
  if (!memory) return memory.error();
  auto gpus = row.small_number(3);
  if (!gpus) return gpus.error();
  record.cpu_milli = *cpu;
  record.memory_mib = *memory;
  gpu_count = *gpus;
  return Status::success();
}

Expected<TraceNode> parse_node(const Row& row) {
  TraceNode node;
  if (Status s = parse_common(row, node, node.gpu_count); !s) return s.error();
  if (node.gpu_count > static_cast<int>(kMaxGpusPerNode))
    return row.error(3, std::to_string(node.gpu_count) + " GPUs; a node has at most " + std::to_string(kMaxGpusPerNode));
  const std::string_view model = row.text(4);
  if (model.empty()) {
    if (node.gpu_count > 0) return row.error(4, "empty for a node with " + std::to_string(node.gpu_count) + " GPUs");
    return node;
  }
  const std::optional<int> type = alibaba_gpu_type(model);
  if (!type) return row.error(4, "unknown GPU model '" + std::string(model) + "' (known: " + known_models() + ")");
  node.gpu_type = *type;
  return node;
}

Status parse_pod_times(const Row& row, TracePod& pod) {
  pod.qos = std::string(row.text(6));
  pod.pod_phase = std::string(row.text(7));
  int64_t* times[] = {&pod.creation_time_s, &pod.deletion_time_s, &pod.scheduled_time_s};
  for (size_t i = 0; i < 3; ++i) {
    auto value = row.number(8 + i, /*allow_empty=*/true);
    if (!value) return value.error();
    *times[i] = *value;
  }
  // A pod that ends before it starts (scheduled, or created when never scheduled) is no record.
  const int64_t begin_s = pod.scheduled_time_s >= 0 ? pod.scheduled_time_s : pod.creation_time_s;
  if (pod.deletion_time_s >= 0 && begin_s >= 0 && pod.deletion_time_s < begin_s)
    return row.error(9, std::to_string(pod.deletion_time_s) + " is before the pod starts (" +
                            (pod.scheduled_time_s >= 0 ? "scheduled_time " : "creation_time ") + std::to_string(begin_s) + ")");
  return Status::success();
}

Expected<TracePod> parse_pod(const Row& row, size_t columns) {
  TracePod pod;
  if (Status s = parse_common(row, pod, pod.num_gpu); !s) return s.error();
  auto milli = row.small_number(4);
  if (!milli) return milli.error();
  pod.gpu_milli = *milli;
  if (columns == kShortPodColumns) return pod;
  auto mask = parse_gpu_spec(row, 5);
  if (!mask) return mask.error();
  pod.gpu_type_mask = *mask;
  const Status times = parse_pod_times(row, pod);
  if (!times) return times.error();
  return pod;
}

// Reads lines after the header, skipping blank ones; `handle` returns a Status per row.
template <class Handle>
Status for_each_row(std::istream& in, const Handle& handle) {
  std::string line;
  int64_t number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const Status status = handle(number, std::string_view(line));
    if (!status) return status;
  }
  return Status::success();
}

bool read_header(std::istream& in, std::string& header) {
  if (!std::getline(in, header)) return false;
  if (!header.empty() && header.back() == '\r') header.pop_back();
  return true;
}

}  // namespace

Status read_node_list(std::istream& in, std::string_view source, const TraceNodeSink& sink) {
  std::string header;
  if (!read_header(in, header)) return Error{std::string(source) + ":1: empty file, expected a header"};
  auto columns = check_header(source, header, kNodeColumns.data(), kNodeColumns.size(), kNodeColumns.size());
  if (!columns) return columns.error();
  return for_each_row(in, [&](int64_t number, std::string_view line) -> Status {
    auto row = make_row(source, number, line, kNodeColumns.data(), *columns);
    if (!row) return row.error();
    auto node = parse_node(*row);
    if (!node) return node.error();
    sink(std::move(node).value());
    return Status::success();
  });
}

Status read_pod_list(std::istream& in, std::string_view source, const TracePodSink& sink) {
  std::string header;
  if (!read_header(in, header)) return Error{std::string(source) + ":1: empty file, expected a header"};
  auto columns = check_header(source, header, kPodColumns.data(), kPodColumns.size(), kShortPodColumns);
  if (!columns) return columns.error();
  return for_each_row(in, [&](int64_t number, std::string_view line) -> Status {
    auto row = make_row(source, number, line, kPodColumns.data(), *columns);
    if (!row) return row.error();
    auto pod = parse_pod(*row, *columns);
    if (!pod) return pod.error();
    sink(std::move(pod).value());
    return Status::success();
  });
}

Status load_node_list(const std::string& path, const TraceNodeSink& sink) {
  auto in = open_input_file(path);
  if (!in) return in.error();
  return read_node_list(*in, path, sink);
}

Status load_pod_list(const std::string& path, const TracePodSink& sink) {
  auto in = open_input_file(path);
  if (!in) return in.error();
  return read_pod_list(*in, path, sink);
}

Expected<std::vector<TraceNode>> load_node_list(const std::string& path) {
  std::vector<TraceNode> nodes;
  const Status status = load_node_list(path, [&](TraceNode&& node) { nodes.push_back(std::move(node)); });
  if (!status) return status.error();
  return nodes;
}

Expected<std::vector<TracePod>> load_pod_list(const std::string& path) {
  std::vector<TracePod> pods;
  const Status status = load_pod_list(path, [&](TracePod&& pod) { pods.push_back(std::move(pod)); });
  if (!status) return status.error();
  return pods;
}

PodRequest trace_pod_request(const TracePod& pod) {
  PodRequest request;
  request.cpu_milli = pod.cpu_milli;
  request.memory_mib = pod.memory_mib;
  request.gpu_type_mask = pod.gpu_type_mask;
  if (pod.num_gpu > 0) request.gpu = GpuAsk::milli_share(pod.gpu_milli, pod.num_gpu);
  return request;
}

Expected<uint16_t> trace_pod_queue(const TracePod& pod, std::string_view source, NameTable& queues) {
  if (pod.qos.empty()) return kNoQueue;
  const auto queue = queues.index(pod.qos);
  if (!queue)
    return Error{std::string(source) + ": pod '" + pod.name + "': column qos: " + too_many_names("queues", queues.limit())};
  return static_cast<uint16_t>(*queue);
}

}  // namespace topsim
