// Internal to core: the text side of the `nvidia-smi topo -m` import (topo_m_import.cpp).
// TopoMParser splits the text into lines of tokens, finds the matrices by their header lines and
// parses the selected one (header, rows, link codes, trailing CPU / NUMA affinity columns, NIC
// legend) into a Matrix, rejecting malformed text with "<source>:<line>: <what>" errors. What the
// text means for the node model (NVLink, GPU model, NUMA, PCIe tree) is topo_m_import.cpp's
// concern. Not part of the public API (see topo_m_import.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/topology.h"
#include "util/expected.h"

namespace topsim::topo_m_detail {

struct TextLine {
  int number = 0;                   // 1-based line number in the source
  std::vector<std::string> tokens;  // whitespace-separated fields (tabs and spaces alike)
};

struct Header {
  size_t line = 0;                   // index into the lines
  std::vector<std::string> devices;  // column names: GPUs first, then NICs
  int gpus = 0;
  std::vector<std::string> trailing;  // "CPU Affinity", "NUMA Affinity", "GPU NUMA ID", ...
};

struct Matrix {
  Header header;
  size_t end = 0;                           // index of the first line after the rows
  std::vector<int> row_line;                // source line number of each row
  std::vector<std::vector<LinkCode>> code;  // [row][column]
  std::vector<std::string> cpu_affinity;    // per row; "" when absent
  std::vector<int> numa_affinity;           // per row; -1 when absent or N/A
  bool has_numa_column = false;
  std::vector<std::string> nic_names;  // NIC columns renamed by the "NIC Legend"
  int devices() const { return static_cast<int>(header.devices.size()); }
  const std::string& name(int e) const { return header.devices[e]; }
};

// Lists names with runs shortened: "GPU5..GPU15, mlx5_0..mlx5_9".
std::string describe_names(const std::vector<std::string>& names);

// One parse of one text. Every error reads "<source>:<line>: <what>".
class TopoMParser {
 public:
  // `matrix`: which matrix in the text, 1-based (TopoImportOptions::matrix).
  TopoMParser(std::string_view text, std::string_view source, int matrix);

  // The `matrix`-th matrix with its rows and NIC legend; appends to `notes` when the text holds
  // several matrices.
  Expected<Matrix> select_matrix(std::vector<std::string>& notes);
  // Every pair must read the same in both directions.
  Status check_symmetry(const Matrix& m) const;

  Error fail(int line, const std::string& what) const { return Error{source_ + ":" + std::to_string(line) + ": " + what}; }
  // The source line number of line `index` (one past the last line at the end of the input).
  int line_number(size_t index) const {
    return index < lines_.size() ? lines_[index].number : static_cast<int>(lines_.size()) + 1;
  }

 private:
  Expected<Header> parse_header(size_t index) const;
  Status parse_rows(Matrix& m) const;
  Status parse_row(Matrix& m, size_t index, int row) const;
  Status parse_codes(Matrix& m, const TextLine& line, int row) const;
  void read_trailing(Matrix& m, const TextLine& line, size_t from, int row) const;
  Status missing_rows(const Matrix& m, size_t index, int row) const;
  void read_nic_legend(Matrix& m, size_t stop) const;

  std::vector<TextLine> lines_;
  std::string source_;
  int matrix_;  // 1-based
};

}  // namespace topsim::topo_m_detail
