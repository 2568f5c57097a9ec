#include "formats/jobs/sacct_table.h"

#include <algorithm>
#include <cctype>

#include "util/one_line.h"

namespace topsim {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string trim(std::string_view text) {
  const size_t first = text.find_first_not_of(' ');
  if (first == std::string_view::npos) return "";
  return std::string(text.substr(first, text.find_last_not_of(' ') - first + 1));
}

std::vector<std::string> split(std::string_view line, char separator) {
  const std::vector<std::string_view> views = split_fields(line, separator);
  return {views.begin(), views.end()};
}

// A column name as sacct prints it in a header ("JobID", "AllocTRES", "Jobid"): a letter, then
// letters and digits.
bool column_name(std::string_view text) {
  return !text.empty() && std::isalpha(static_cast<unsigned char>(text[0])) &&
         std::all_of(text.begin(), text.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)); });
}

// `--parsable` (not `--parsable2`) ends every line with the separator.
void drop_trailing_empty(std::vector<std::string>& fields, size_t expected) {
  if (fields.size() == expected + 1 && fields.back().empty()) fields.pop_back();
}

bool dashes(std::string_view line) {
  return line.find('-') != std::string_view::npos &&
         std::all_of(line.begin(), line.end(), [](char c) { return c == '-' || c == ' '; });
}

// (start, width) of each group of dashes.
std::vector<std::pair<size_t, size_t>> dash_groups(std::string_view line) {
  std::vector<std::pair<size_t, size_t>> groups;
  for (size_t i = 0; i < line.size();) {
    if (line[i] != '-') {
      ++i;
      continue;
    }
    const size_t start = i;
    while (i < line.size() && line[i] == '-') ++i;
    groups.emplace_back(start, i - start);
  }
  return groups;
}

// A row of sacct's default fields (JobID, JobName, Partition, Account, AllocCPUS, State, ExitCode):
// a CPU count, a state in capitals and an exit code "0:0".
bool default_fields(const std::vector<std::string>& f) {
  const auto all = [](const std::string& text, auto pred) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [&](char c) { return pred(static_cast<unsigned char>(c)); });
  };
  const size_t colon = f.size() == 7 ? f[6].find(':') : std::string::npos;
  return colon != std::string::npos && all(f[4], ::isdigit) &&
         all(f[5], [](unsigned char c) { return std::isupper(c) || c == ' '; }) && all(f[6].substr(0, colon), ::isdigit) &&
         all(f[6].substr(colon + 1), ::isdigit);
}

// The canonical spelling of the columns topsim reads, by lower-case name.
const std::map<std::string, std::string>& canonical() {
  static const std::map<std::string, std::string> names = {
      {"jobid", "JobID"},         {"jobname", "JobName"}, {"submit", "Submit"}, {"start", "Start"},     {"end", "End"},
      {"alloctres", "AllocTRES"}, {"nnodes", "NNodes"},   {"state", "State"},   {"account", "Account"}, {"qos", "QOS"}};
  return names;
}

}  // namespace

std::vector<std::string_view> split_fields(std::string_view line, char separator) {
  std::vector<std::string_view> fields;
  for (size_t start = 0;;) {
    const size_t at = line.find(separator, start);
    fields.push_back(line.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return fields;
    start = at + 1;
  }
}

bool SacctTable::next_line(std::string& line) {
  while (std::getline(*in_, line)) {
    ++line_number_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line[first] != '#') return true;
  }
  return false;
}

Expected<SacctTable> SacctTable::open(std::istream& in, std::string source, const std::string& format) {
  SacctTable t(in, std::move(source));
  std::string line;
  if (!t.next_line(line)) return Error{t.source_ + ":1: empty: expected sacct output (" + kSacctCommand + ")"};
  const std::string at = t.where();
  t.header_where_ = at;
  if (line.find('|') != std::string::npos) {
    std::vector<std::string> fields = split(line, '|');
    if (fields.size() > 1 && fields.back().empty()) fields.pop_back();
    if (std::all_of(fields.begin(), fields.end(), [](const std::string& f) { return column_name(f); })) {
      for (const std::string& f : fields) t.names_.push_back(lower(f));
    } else if (!format.empty()) {
      t.layout_ = SacctLayout::ParsableNoHeader;
      for (const std::string& f : split(format, ',')) t.names_.push_back(lower(trim(f.substr(0, f.find('%')))));
      t.pending_ = line;
    } else if (default_fields(fields)) {
      return Error{at + ": sacct --parsable2 output without a header, in sacct's default fields (" +
                   std::string(kSacctDefaultFormat) + "), which hold no times or GPUs: run " + kSacctCommand};
    } else {
      return Error{at +
                   ": sacct --parsable2 output without a header (its first line holds data): give the --format it was "
                   "run with (--sacct-format JobID,...) or run " +
                   std::string(kSacctCommand)};
    }
  } else {
    const std::vector<std::string> words = [&] {
      std::vector<std::string> out;
      for (const std::string& w : split(line, ' '))
        if (!w.empty()) out.push_back(w);
      return out;
    }();
    const bool tres = line.find("gres/") != std::string::npos || line.find("cpu=") != std::string::npos;
    if (line.find('=') != std::string::npos && tres)
      return Error{at +
                   ": sacct output of one column without a header (a TRES list such as AllocTRES) holds no job ids or "
                   "times: run " +
                   std::string(kSacctCommand)};
    std::string rule;
    if (!t.next_line(rule) || !dashes(rule) || dash_groups(rule).size() != words.size() ||
        !std::all_of(words.begin(), words.end(), [](const std::string& w) { return column_name(w); }))
      return Error{at +
                   ": not sacct output: expected its --parsable2 table ('|'-separated, a header first) or its "
                   "fixed-width table (a header, then a line of dashes); run " +
                   std::string(kSacctCommand)};
    t.layout_ = SacctLayout::FixedWidth;
    t.widths_ = dash_groups(rule);
    for (const std::string& w : words) t.names_.push_back(lower(w));
  }
  for (size_t i = 0; i < t.names_.size(); ++i) t.index_.emplace(t.names_[i], i);
  return t;
}

Expected<std::optional<std::vector<std::string>>> SacctTable::next_row() {
  std::string line;
  if (pending_) {
    line = std::move(*pending_);
    pending_.reset();
  } else if (!next_line(line)) {
    if (in_->bad()) return Error{where() + ": read error"};
    return std::optional<std::vector<std::string>>();
  }
  std::vector<std::string> fields;
  if (layout_ == SacctLayout::FixedWidth) {
    for (const auto& [start, width] : widths_) fields.push_back(trim(start < line.size() ? line.substr(start, width) : ""));
    return std::optional<std::vector<std::string>>(std::move(fields));
  }
  fields = split(line, '|');
  drop_trailing_empty(fields, names_.size());
  if (fields.size() != names_.size())
    return Error{where() + ": " + std::to_string(fields.size()) + " fields, the " +
                 (layout_ == SacctLayout::Parsable ? "header has " : "--sacct-format names ") + std::to_string(names_.size())};
  return std::optional<std::vector<std::string>>(std::move(fields));
}

std::optional<size_t> SacctTable::column(std::string_view name) const {
  const auto it = index_.find(lower(name));
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> SacctTable::missing(const std::vector<std::string>& names) const {
  std::vector<std::string> out;
  for (const std::string& name : names)
    if (!column(name)) out.push_back(canonical().count(lower(name)) ? canonical().at(lower(name)) : name);
  return out;
}

Status SacctTable::check_whole(const std::vector<std::string>& row, const std::vector<std::string>& names) const {
  if (layout_ != SacctLayout::FixedWidth) return Status::success();
  for (const std::string& name : names) {
    const auto c = column(name);
    if (!c) continue;
    const std::string& value = row[*c];
    if (!value.empty() && value.back() == '+' && value.size() >= widths_[*c].second)
      return Error{where() + ": column " + name + " is cut at its " + std::to_string(widths_[*c].second) + " characters ('" +
                   quoted_value(value) + "'): run sacct with --parsable2 (" + kSacctCommand + ")"};
  }
  return Status::success();
}

}  // namespace topsim
