// The table of a `sacct` output as it comes (Slurm's sacct(1)): `--parsable2` ('|'-separated)
// with its header line, or without it (`--noheader`: the columns are those of the --format it
// was run with, given here), or the fixed-width default layout (a header line, a line of dashes
// per column, then rows cut at each column's width). Lines starting with '#' are comments.
// Column names are matched without regard to case, as sacct reads them ("jobid" is JobID).
#pragma once

#include <istream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.h"

namespace topsim {

enum class SacctLayout { Parsable, ParsableNoHeader, FixedWidth };

class SacctTable {
 public:
  // Reads the header (or takes `format`, the comma-separated --format of header-less output).
  // Errors name the source and line and say what to run: "sacct.txt:1: sacct --parsable2 output
  // without a header: ...".
  [[nodiscard]] static Expected<SacctTable> open(std::istream& in, std::string source, const std::string& format);

  // The next row; nullopt at the end. Errors name the line ("sacct.txt:7: 5 fields, the header
  // has 7"; a fixed-width field cut at its width: "column AllocTRES is cut at its 10 characters").
  [[nodiscard]] Expected<std::optional<std::vector<std::string>>> next_row();

  SacctLayout layout() const { return layout_; }
  // Column index of `name` (canonical spelling, e.g. "AllocTRES"); nullopt when absent.
  std::optional<size_t> column(std::string_view name) const;
  // "sacct.txt:17": the line of the last row read.
  std::string where() const { return source_ + ":" + std::to_string(line_number_); }
  // "sacct.txt:1": the line of the header (header-less output: of the first row).
  const std::string& header_where() const { return header_where_; }
  // The columns required by `names` that the table lacks, in that order.
  std::vector<std::string> missing(const std::vector<std::string>& names) const;
  // Fixed width: an error naming the first of `names` whose value in `row` sacct cut at its
  // column's width (it then ends in '+'); success for the other layouts.
  Status check_whole(const std::vector<std::string>& row, const std::vector<std::string>& names) const;

 private:
  SacctTable(std::istream& in, std::string source) : in_(&in), source_(std::move(source)) {}
  bool next_line(std::string& line);

  std::istream* in_;
  std::string source_;
  int64_t line_number_ = 0;
  std::string header_where_;
  SacctLayout layout_ = SacctLayout::Parsable;
  std::vector<std::string> names_;                 // lower-case column names
  std::vector<std::pair<size_t, size_t>> widths_;  // fixed width: (start, width) of each column
  std::optional<std::string> pending_;             // a data line read while finding the layout
  std::map<std::string, size_t> index_;            // lower-case name -> column
};

// The fields of a `separator`-separated line, empty ones included; views into `line`.
std::vector<std::string_view> split_fields(std::string_view line, char separator);

// The fields sacct prints without --format (sacct(1), "-o, --format": "JobID, JobName,
// Partition, Account, AllocCPUS, State, ExitCode").
inline constexpr const char* kSacctDefaultFormat = "JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode";
// The command docs/importers.md gives.
inline constexpr const char* kSacctCommand =
    "sacct --allocations --parsable2 --format=JobID,JobName,Submit,Start,End,AllocTRES,NNodes,State,Account,QOS";

}  // namespace topsim
