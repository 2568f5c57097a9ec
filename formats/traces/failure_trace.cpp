#include "formats/traces/failure_trace.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "formats/support/csv.h"
#include "util/input_file.h"

namespace topsim {
namespace {

constexpr double kMaxSeconds = 1e10;  // ~317 years: far above any trace, far below int64 ms

// A field as shown in an error, quoted and shortened.
std::string quoted(std::string_view field) {
  return "'" + std::string(field.size() > 40 ? field.substr(0, 37) : field) + (field.size() > 40 ? "...'" : "'");
}

Status check_header(CsvLines& lines) {
  if (!lines.next()) return Error{lines.source() + ": empty file, expected the header 'node,start_s,duration_s[,cause]'"};
  std::string_view header = lines.line();
  if (header.substr(0, 3) == "\xEF\xBB\xBF") header.remove_prefix(3);  // UTF-8 byte order mark
  if (header != "node,start_s,duration_s" && header != "node,start_s,duration_s,cause")
    return lines.error("bad header " + quoted(header) +
                       " (expected 'node,start_s,duration_s' or 'node,start_s,duration_s,cause')");
  return Status::success();
}

Expected<int64_t> seconds_ms(const CsvLines& lines, std::string_view column, std::string_view field) {
  const auto value = parse_csv_double(field);
  if (!value || *value < 0 || *value > kMaxSeconds)
    return lines.column_error(column, quoted(field) + " is not a number of seconds in [0, 1e10]");
  return std::llround(*value * 1000);
}

Expected<ReplayedFailure> parse_row(const CsvLines& lines, size_t columns, const std::map<std::string, int, std::less<>>& nodes) {
  const auto& f = lines.fields();
  if (f.size() != columns)
    return lines.error("expected " + std::to_string(columns) + " fields, found " + std::to_string(f.size()));
  ReplayedFailure out;
  const auto node = nodes.find(f[0]);
  if (node == nodes.end())
    return lines.column_error("node", quoted(f[0]) + " is no node of the cluster (names: kubectl names or node-<index>)");
  out.node = node->second;
  auto at = seconds_ms(lines, "start_s", f[1]);
  if (!at) return at.error();
  auto down = seconds_ms(lines, "duration_s", f[2]);
  if (!down) return down.error();
  out.at_ms = *at;
  out.down_ms = *down;
  if (columns == 4 && !f[3].empty()) {
    const auto cause = parse_enum<FailureCause>(f[3]);
    if (!cause || *cause == FailureCause::Replayed)
      return lines.column_error("cause", quoted(f[3]) + " is not one of gpu, hbm, network, host, software");
    out.cause = *cause;
  }
  return out;
}

}  // namespace

Expected<std::vector<ReplayedFailure>> read_failure_trace(std::istream& in, const std::string& source,
                                                          const std::vector<std::string>& node_names) {
  std::map<std::string, int, std::less<>> nodes;
  for (size_t i = 0; i < node_names.size(); ++i) {
    nodes.emplace(node_names[i], static_cast<int>(i));
    nodes.emplace("node-" + std::to_string(i), static_cast<int>(i));
  }
  CsvLines lines(in, source);
  if (Status s = check_header(lines); !s) return s.error();
  const size_t columns = lines.fields().size();
  std::vector<ReplayedFailure> out;
  while (lines.next()) {
    auto row = parse_row(lines, columns, nodes);
    if (!row) return row.error();
    out.push_back(*row);
  }
  if (lines.read_failed()) return Error{source + ": read error"};
  if (out.empty()) return Error{source + ": no incidents after the header"};
  std::stable_sort(out.begin(), out.end(), [](const ReplayedFailure& a, const ReplayedFailure& b) { return a.at_ms < b.at_ms; });
  return out;
}

Expected<std::vector<ReplayedFailure>> load_failure_trace(const std::string& path, const std::vector<std::string>& node_names) {
  auto in = open_input_file(path);
  if (!in) return in.error();
  return read_failure_trace(*in, path, node_names);
}

}  // namespace topsim
