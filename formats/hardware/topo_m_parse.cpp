// Parsing of `nvidia-smi topo -m` text into a Matrix (see topo_m_parse.h).
#include "formats/hardware/topo_m_parse.h"
#include "util/text.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

namespace topsim::topo_m_detail {
namespace {

std::vector<TextLine> split_lines(std::string_view text) {
  std::vector<TextLine> lines;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    TextLine line{static_cast<int>(lines.size()) + 1, {}};
    std::istringstream fields{std::string(text.substr(start, end - start))};
    for (std::string token; fields >> token;) line.tokens.push_back(token);
    lines.push_back(std::move(line));
    start = end + 1;
  }
  return lines;
}

bool is_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// Small non-negative integer, or -1 (no exception for long or malformed input).
int parse_index(std::string_view s) { return is_digits(s) && s.size() <= 6 ? std::stoi(std::string(s)) : -1; }

bool is_indexed_name(std::string_view token, std::string_view prefix) {
  return token.size() > prefix.size() && token.substr(0, prefix.size()) == prefix && is_digits(token.substr(prefix.size()));
}

bool is_link_code(const std::string& token) { return parse_link_code(token).has_value(); }

bool is_device_name(const std::string& token) {
  return is_indexed_name(token, "GPU") || is_indexed_name(token, "NIC") || token.rfind("mlx", 0) == 0;
}

// Words that open the trailing columns "CPU Affinity", "NUMA Affinity", "GPU NUMA ID".
bool is_trailing_word(const std::string& token) {
  return token == "CPU" || token == "NUMA" || token == "GPU" || token == "Affinity" || token == "ID";
}

// A header names devices and holds no link code; a row holds link codes after its name.
bool is_header(const TextLine& line) {
  return !line.tokens.empty() && is_device_name(line.tokens[0]) &&
         std::none_of(line.tokens.begin(), line.tokens.end(), is_link_code);
}
bool is_row(const TextLine& line) {
  return line.tokens.size() >= 2 && std::any_of(line.tokens.begin() + 1, line.tokens.end(), is_link_code);
}

// Trailing row values (CPU / NUMA affinity) start with a digit or read N/A; link fields never do.
bool is_affinity_value(const std::string& token) { return token == "N/A" || std::isdigit(static_cast<unsigned char>(token[0])); }

// "GPU5" -> {"GPU", 5}; index -1 when the name has no numeric suffix.
std::pair<std::string, int> split_suffix(const std::string& name) {
  size_t p = name.size();
  while (p > 0 && std::isdigit(static_cast<unsigned char>(name[p - 1]))) --p;
  return {name.substr(0, p), parse_index(std::string_view(name).substr(p))};
}

bool is_successor(const std::string& a, const std::string& b) {
  const auto [prefix_a, index_a] = split_suffix(a);
  const auto [prefix_b, index_b] = split_suffix(b);
  return prefix_a == prefix_b && index_a >= 0 && index_b == index_a + 1;
}

// Splits the words after the device columns into known multi-word column names.
std::vector<std::string> trailing_columns(const std::vector<std::string>& tokens, size_t from) {
  static const std::vector<std::vector<std::string>> kKnown = {{"CPU", "Affinity"}, {"NUMA", "Affinity"}, {"GPU", "NUMA", "ID"}};
  std::vector<std::string> columns;
  while (from < tokens.size()) {
    auto match = std::find_if(kKnown.begin(), kKnown.end(), [&](const auto& words) {
      return from + words.size() <= tokens.size() && std::equal(words.begin(), words.end(), tokens.begin() + from);
    });
    const size_t width = match == kKnown.end() ? 1 : match->size();
    std::vector<std::string> words(tokens.begin() + from, tokens.begin() + from + width);
    columns.push_back(join(words, " "));
    from += width;
  }
  return columns;
}

}  // namespace

std::string describe_names(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size();) {
    size_t j = i;
    while (j + 1 < names.size() && is_successor(names[j], names[j + 1])) ++j;
    out += (out.empty() ? "" : ", ") + names[i];
    if (j > i) out += (j == i + 1 ? ", " : "..") + names[j];
    i = j + 1;
  }
  return out;
}

TopoMParser::TopoMParser(std::string_view text, std::string_view source, int matrix)
    : lines_(split_lines(text)), source_(source), matrix_(matrix) {}

Expected<Matrix> TopoMParser::select_matrix(std::vector<std::string>& notes) {
  std::vector<size_t> headers;
  for (size_t i = 0; i < lines_.size(); ++i)
    if (is_header(lines_[i])) headers.push_back(i);
  if (headers.empty())
    return fail(1, lines_.empty() ? "empty input: no nvidia-smi topo -m matrix"
                                  : "no nvidia-smi topo -m matrix found (no header line naming GPU0, GPU1, ...)");
  const int count = static_cast<int>(headers.size());
  if (matrix_ < 1 || matrix_ > count)
    return fail(lines_[headers.back()].number, "matrix " + std::to_string(matrix_) + " requested but the text holds " +
                                                   std::to_string(count) + (count == 1 ? " matrix" : " matrices"));
  if (count > 1)
    notes.push_back("file holds " + std::to_string(count) + " matrices; imported matrix " + std::to_string(matrix_) +
                    " (use --matrix to pick another)");
  const size_t at = headers[matrix_ - 1];
  Expected<Header> header = parse_header(at);
  if (!header) return header.error();
  Matrix m;
  m.header = std::move(*header);
  if (Status s = parse_rows(m); !s) return s.error();
  read_nic_legend(m, matrix_ < count ? headers[matrix_] : lines_.size());
  return m;
}

Expected<Header> TopoMParser::parse_header(size_t index) const {
  const TextLine& line = lines_[index];
  Header h{index, {}, 0, {}};
  size_t t = 0;
  for (; t < line.tokens.size() && !is_trailing_word(line.tokens[t]); ++t) h.devices.push_back(line.tokens[t]);
  h.trailing = trailing_columns(line.tokens, t);
  while (h.gpus < static_cast<int>(h.devices.size()) && is_indexed_name(h.devices[h.gpus], "GPU")) ++h.gpus;
  if (h.gpus == 0) return fail(line.number, "header has no GPU columns (first column is " + h.devices[0] + ")");
  std::set<std::string> seen;
  for (size_t c = 0; c < h.devices.size(); ++c) {
    const std::string& name = h.devices[c];
    if (c < static_cast<size_t>(h.gpus) && name != "GPU" + std::to_string(c))
      return fail(line.number, "header column " + std::to_string(c + 1) + " is " + name + ", expected GPU" + std::to_string(c));
    if (c >= static_cast<size_t>(h.gpus) && is_indexed_name(name, "GPU"))
      return fail(line.number, "header column " + name + " follows the NIC columns (GPUs must come first)");
    if (!seen.insert(name).second) return fail(line.number, "header names device " + name + " twice");
  }
  return h;
}

Status TopoMParser::parse_rows(Matrix& m) const {
  const int n = m.devices();
  m.code.assign(n, std::vector<LinkCode>(n, LinkCode{LinkClass::Self, 0}));
  m.row_line.assign(n, 0);
  m.cpu_affinity.assign(n, "");
  m.numa_affinity.assign(n, -1);
  m.has_numa_column = std::count(m.header.trailing.begin(), m.header.trailing.end(), "NUMA Affinity") > 0;
  size_t index = m.header.line + 1;
  for (int row = 0; row < n; ++row, ++index) {
    if (index >= lines_.size() || !is_row(lines_[index])) return missing_rows(m, index, row);
    if (Status s = parse_row(m, index, row); !s) return s;
  }
  m.end = index;
  if (index < lines_.size() && is_row(lines_[index]))
    return fail(lines_[index].number, "row " + lines_[index].tokens[0] + " is not in the header (the header has " +
                                          std::to_string(n) + " devices, all rows already read)");
  return {};
}

Status TopoMParser::missing_rows(const Matrix& m, size_t index, int row) const {
  const std::vector<std::string> missing(m.header.devices.begin() + row, m.header.devices.end());
  std::string found = "end of input";
  if (index < lines_.size()) {
    found.clear();
    for (const auto& token : lines_[index].tokens) found += (found.empty() ? "" : " ") + token;
    found = found.empty() ? "a blank line" : "'" + found.substr(0, 48) + "'";
  }
  return fail(line_number(index), "incomplete matrix: expected row " + m.name(row) + ", found " + found + "; missing rows " +
                                      describe_names(missing));
}

Status TopoMParser::parse_row(Matrix& m, size_t index, int row) const {
  const TextLine& line = lines_[index];
  const std::string& name = line.tokens[0];
  if (name != m.name(row)) {
    const bool known = std::count(m.header.devices.begin(), m.header.devices.end(), name) > 0;
    return fail(line.number, known ? "row " + name + " is out of order: expected row " + m.name(row) + " (rows follow the header)"
                                   : "row " + name + " is not in the header (expected row " + m.name(row) + ")");
  }
  m.row_line[row] = line.number;
  const auto fields_end = std::find_if(line.tokens.begin() + 1, line.tokens.end(), is_affinity_value);
  const int fields = static_cast<int>(fields_end - line.tokens.begin()) - 1;
  const int n = m.devices();
  if (fields < n && (index + 1 >= lines_.size() || !is_row(lines_[index + 1]))) {
    const std::vector<std::string> rest(m.header.devices.begin() + row + 1, m.header.devices.end());
    return fail(line.number, "incomplete matrix: row " + name + " has " + std::to_string(fields) + " of " + std::to_string(n) +
                                 " link fields" + (rest.empty() ? "" : "; missing rows " + describe_names(rest)));
  }
  if (fields != n)
    return fail(line.number, "non-square matrix: row " + name + " has " + std::to_string(fields) + " link fields, expected " +
                                 std::to_string(n) + " (one per header device)");
  if (Status s = parse_codes(m, line, row); !s) return s;
  read_trailing(m, line, static_cast<size_t>(fields) + 1, row);
  return {};
}

Status TopoMParser::parse_codes(Matrix& m, const TextLine& line, int row) const {
  for (int col = 0; col < m.devices(); ++col) {
    const std::string& token = line.tokens[col + 1];
    const std::string where = "row " + m.name(row) + ", column " + m.name(col);
    const std::optional<LinkCode> code = parse_link_code(token);
    if (!code) return fail(line.number, "unknown link code '" + token + "' in " + where);
    if ((col == row) != (code->cls == LinkClass::Self))
      return fail(line.number,
                  col == row ? "diagonal is " + token + " in " + where + ", expected X" : "X off the diagonal in " + where);
    if (code->cls == LinkClass::NVLink && (row >= m.header.gpus || col >= m.header.gpus))
      return fail(line.number, token + " in " + where + ": NVLink joins GPUs only");
    m.code[row][col] = *code;
  }
  return {};
}

void TopoMParser::read_trailing(Matrix& m, const TextLine& line, size_t from, int row) const {
  const auto& columns = m.header.trailing;
  for (size_t k = 0; k < columns.size() && from + k < line.tokens.size(); ++k) {
    const std::string& value = line.tokens[from + k];
    if (columns[k] == "CPU Affinity") m.cpu_affinity[row] = value;
    if (columns[k] == "NUMA Affinity") m.numa_affinity[row] = parse_index(value);
  }
}

// "NIC Legend:" lines such as "NIC0: mlx5_0" between the matrix and `stop` rename NIC columns.
void TopoMParser::read_nic_legend(Matrix& m, size_t stop) const {
  m.nic_names.assign(m.header.devices.begin() + m.header.gpus, m.header.devices.end());
  for (size_t i = m.end; i < stop && i < lines_.size(); ++i) {
    const auto& tokens = lines_[i].tokens;
    if (tokens.size() != 2 || tokens[0].size() < 2 || tokens[0].back() != ':') continue;
    const std::string column = tokens[0].substr(0, tokens[0].size() - 1);
    auto it = std::find(m.header.devices.begin() + m.header.gpus, m.header.devices.end(), column);
    if (it != m.header.devices.end()) m.nic_names[it - m.header.devices.begin() - m.header.gpus] = tokens[1];
  }
}

Status TopoMParser::check_symmetry(const Matrix& m) const {
  for (int a = 0; a < m.devices(); ++a)
    for (int b = a + 1; b < m.devices(); ++b) {
      const LinkCode& ab = m.code[a][b];
      const LinkCode& ba = m.code[b][a];
      if (ab.cls != ba.cls || ab.nvlinks != ba.nvlinks)
        return fail(m.row_line[b], "asymmetric pair: " + m.name(a) + "/" + m.name(b) + " is " + link_code(ab.cls, ab.nvlinks) +
                                       " (line " + std::to_string(m.row_line[a]) + ") but " + m.name(b) + "/" + m.name(a) +
                                       " is " + link_code(ba.cls, ba.nvlinks));
    }
  return {};
}

}  // namespace topsim::topo_m_detail
