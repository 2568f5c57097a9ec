#include "formats/support/csv.h"

#include <charconv>
#include <cmath>

namespace topsim {

CsvLines::CsvLines(std::istream& in, std::string source) : in_(in), source_(std::move(source)) {}

bool CsvLines::next() {
  while (std::getline(in_, line_)) {
    ++line_number_;
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    if (line_.find_first_not_of(" \t") == std::string::npos) continue;
    fields_.clear();
    const std::string_view text = line_;
    size_t start = 0;
    for (size_t comma = text.find(','); comma != std::string_view::npos; comma = text.find(',', start)) {
      fields_.push_back(text.substr(start, comma - start));
      start = comma + 1;
    }
    fields_.push_back(text.substr(start));
    return true;
  }
  return false;
}

Error CsvLines::error(std::string_view what) const {
  return Error{source_ + ":" + std::to_string(line_number_) + ": " + std::string(what)};
}

Error CsvLines::column_error(std::string_view column, std::string_view what) const {
  return error("column " + std::string(column) + ": " + std::string(what));
}

std::optional<int64_t> parse_csv_int(std::string_view field) {
  int64_t value = 0;
  const char* end = field.data() + field.size();
  const auto [ptr, ec] = std::from_chars(field.data(), end, value);
  if (field.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::optional<double> parse_csv_double(std::string_view field) {
  double value = 0;
  const char* end = field.data() + field.size();
  const auto [ptr, ec] = std::from_chars(field.data(), end, value);
  if (field.empty() || ec != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

}  // namespace topsim
