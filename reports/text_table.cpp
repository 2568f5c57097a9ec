#include "reports/text_table.h"

#include <fmt/format.h>
#include <algorithm>

namespace topsim {

std::string text_table(const std::vector<TextRow>& rows, const TextTableLayout& layout) {
  std::vector<size_t> width;
  for (const TextRow& row : rows)
    for (size_t c = 0; c < row.size(); ++c) {
      if (layout.free_last && c + 1 == row.size()) break;
      if (width.size() <= c) width.resize(c + 1, 0);
      width[c] = std::max(width[c], row[c].size());
    }
  std::string out;
  for (const TextRow& row : rows) {
    std::string line = layout.indent;
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
