#include "reports/text_table.h"

#include <fmt/format.h>
#include <algorithm>

namespace topsim {
namespace {

// Characters of UTF-8 text: bytes that do not continue a sequence (fmt pads by the same count).
size_t characters(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

}  // namespace

std::string text_table(const std::vector<TextRow>& rows, const TextTableLayout& layout) {
  std::vector<size_t> width;
  for (const TextRow& row : rows) {
    if (layout.headings && row.size() == 1) continue;
    for (size_t c = 0; c < row.size(); ++c) {
      if (layout.free_last && c + 1 == row.size()) break;
      if (width.size() <= c) width.resize(c + 1, 0);
      width[c] = std::max(width[c], characters(row[c]));
    }
  }
  std::string out;
  for (const TextRow& row : rows) {
    std::string line = layout.indent;
    if (layout.headings && row.size() == 1) {
      out += line + row.front() + "\n";
      continue;
    }
    for (size_t c = 0; c < row.size(); ++c) {
      const bool last = c + 1 == row.size();
      if (c > 0) line.append(last ? layout.last_gap : 2, ' ');
      if (last && layout.free_last)
        line += row[c];
      else if (c < layout.left_columns)
        line += fmt::format("{:<{}}", row[c], width[c]);
      else
        line += fmt::format("{:>{}}", row[c], width[c]);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  return out;
}

}  // namespace topsim
