// Tables for a terminal: every column as wide as its widest cell, so a long scheduler name or a
// wide figure moves its whole column rather than its own row out of line.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace topsim {

using TextRow = std::vector<std::string>;

struct TextTableLayout {
  std::string indent;                                        // before every line
  size_t left_columns = std::numeric_limits<size_t>::max();  // the first this many left-aligned, the rest right-aligned
  size_t last_gap = 2;                                       // spaces before the last column (2 between the others)
  bool free_last = true;  // a row's last cell is free text, written as it is; else padded like the others
  bool headings = false;  // a row of one cell is a heading between parts of the table: written as it is
};

// The rows as lines, cells two spaces apart (`last_gap` before a row's last cell), each padded to
// the widest cell of its column (free last cells and headings take no part); no line ends in a
// blank. Rows may be shorter than others. Widths are counted in characters, so "±" is one.
std::string text_table(const std::vector<TextRow>& rows, const TextTableLayout& layout = {});

}  // namespace topsim
