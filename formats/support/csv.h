// A streaming reader for the plain comma-separated files of the public traces (no quoting, no
// embedded commas): one line at a time, the fields as views into that line, and errors that
// name the source, the 1-based line number and the column.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.h"

namespace topsim {

class CsvLines {
 public:
  // REQUIRES: `in` outlives the reader. `source` (normally the path) prefixes every error.
  CsvLines(std::istream& in, std::string source);

  // Advances to the next line that is not blank; false at the end of the input. A trailing
  // '\r' (CRLF files) is dropped. Fields stay valid until the next call.
  bool next();
  const std::vector<std::string_view>& fields() const { return fields_; }
  std::string_view line() const { return line_; }
  int64_t line_number() const { return line_number_; }  // 1-based; 0 before the first next()
  // True when reading stopped on an I/O error rather than at the end of the input.
  bool read_failed() const { return in_.bad(); }

  // "<source>:<line>: <what>"
  Error error(std::string_view what) const;
  // "<source>:<line>: column <column>: <what>"
  Error column_error(std::string_view column, std::string_view what) const;
  const std::string& source() const { return source_; }

 private:
  std::istream& in_;
  std::string source_;
  std::string line_;
  std::vector<std::string_view> fields_;
  int64_t line_number_ = 0;
};

// Whole-field parsers: nullopt unless the entire field is the number (no spaces, no suffix).
std::optional<int64_t> parse_csv_int(std::string_view field);
// Decimal or scientific notation; nullopt for NaN, infinities and out-of-range values.
std::optional<double> parse_csv_double(std::string_view field);

}  // namespace topsim
