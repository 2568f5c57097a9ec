// Import of `nvidia-smi topo -m` text: parse one matrix, check it, infer what the text leaves out
// (GPU model, CPU kind, NUMA node of NICs), rebuild a PCIe tree and verify it against the text.
#include "core/topo_m_import.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include "core/builtin_models.h"
#include "core/topology.h"

namespace topsim {
namespace {

// ------------------------------------------------------------------------------- text, names

struct TextLine {
  int number = 0;                   // 1-based line number in the source
  std::vector<std::string> tokens;  // whitespace-separated fields (tabs and spaces alike)
};

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
  return token.size() > prefix.size() && token.substr(0, prefix.size()) == prefix &&
         is_digits(token.substr(prefix.size()));
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
bool is_affinity_value(const std::string& token) {
  return token == "N/A" || std::isdigit(static_cast<unsigned char>(token[0]));
}

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

// Lists names with runs shortened: "GPU5..GPU15, mlx5_0..mlx5_9".
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

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// -------------------------------------------------------------------------- parsed matrix

struct Header {
  size_t line = 0;                    // index into the lines
  std::vector<std::string> devices;   // column names: GPUs first, then NICs
  int gpus = 0;
  std::vector<std::string> trailing;  // "CPU Affinity", "NUMA Affinity", "GPU NUMA ID", ...
};

struct Matrix {
  Header header;
  size_t end = 0;                             // index of the first line after the rows
  std::vector<int> row_line;                  // source line number of each row
  std::vector<std::vector<LinkCode>> code;    // [row][column]
  std::vector<std::string> cpu_affinity;      // per row; "" when absent
  std::vector<int> numa_affinity;             // per row; -1 when absent or N/A
  bool has_numa_column = false;
  std::vector<std::string> nic_names;         // NIC columns renamed by the "NIC Legend"
  int devices() const { return static_cast<int>(header.devices.size()); }
  const std::string& name(int e) const { return header.devices[e]; }
};

// Splits the words after the device columns into known multi-word column names.
std::vector<std::string> trailing_columns(const std::vector<std::string>& tokens, size_t from) {
  static const std::vector<std::vector<std::string>> kKnown = {
      {"CPU", "Affinity"}, {"NUMA", "Affinity"}, {"GPU", "NUMA", "ID"}};
  std::vector<std::string> columns;
  while (from < tokens.size()) {
    auto match = std::find_if(kKnown.begin(), kKnown.end(), [&](const auto& words) {
      return from + words.size() <= tokens.size() && std::equal(words.begin(), words.end(), tokens.begin() + from);
    });
    const size_t width = match == kKnown.end() ? 1 : match->size();
    std::vector<std::string> words(tokens.begin() + from, tokens.begin() + from + width);
    std::string column;
    for (const auto& word : words) column += (column.empty() ? "" : " ") + word;
    columns.push_back(column);
    from += width;
  }
  return columns;
}

int pcie_level(const LinkCode& code) {  // PIX 1 .. SYS 5; 0 = no PCIe evidence (X, NV#)
  switch (code.cls) {
    case LinkClass::PIX: return 1;
    case LinkClass::PXB: return 2;
    case LinkClass::PHB: return 3;
    case LinkClass::Node: return 4;
    case LinkClass::Sys: return 5;
    default: return 0;
  }
}

// Disjoint sets over endpoints; a set's representative is its smallest member.
class DisjointSets {
 public:
  explicit DisjointSets(int n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  int find(int x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void join(int a, int b) {
    a = find(a), b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }
  std::vector<int> roots() {
    std::vector<int> out(parent_.size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = find(static_cast<int>(i));
    return out;
  }

 private:
  std::vector<int> parent_;
};

// roots[t][e]: group of endpoint e when pairs at PCIe level <= t are joined (single linkage);
// t = 1 leaf switch, 2 top switch, 3 host bridge, 4 NUMA node (plus shared NUMA evidence).
using Levels = std::array<std::vector<int>, 5>;

// Members split by their group at one level, groups in order of their first member.
std::vector<std::vector<int>> partition(const std::vector<int>& members, const std::vector<int>& roots) {
  std::vector<std::vector<int>> groups;
  std::map<int, size_t> slot;
  for (int e : members) {
    auto [it, fresh] = slot.emplace(roots[e], groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(e);
  }
  return groups;
}

// The NUMA evidence of an endpoint: its NUMA Affinity, else (without that column) its CPU
// Affinity string; "" when it has none.
std::string numa_key(const Matrix& m, int e) {
  if (m.numa_affinity[e] >= 0) return "numa " + std::to_string(m.numa_affinity[e]);
  const std::string& cpus = m.cpu_affinity[e];
  return !m.has_numa_column && !cpus.empty() && cpus != "N/A" ? "cpus " + cpus : "";
}

void join_equal_numa_keys(const Matrix& m, DisjointSets& sets) {
  std::map<std::string, int> first_with_key;
  for (int e = 0; e < m.devices(); ++e)
    if (const std::string key = numa_key(m, e); !key.empty()) sets.join(e, first_with_key.emplace(key, e).first->second);
}

Levels group_levels(const Matrix& m) {
  Levels levels;
  const int n = m.devices();
  for (int t = 1; t <= 4; ++t) {
    DisjointSets sets(n);
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b)
        if (const int level = pcie_level(m.code[a][b]); level > 0 && level <= t) sets.join(a, b);
    if (t == 4) join_equal_numa_keys(m, sets);
    levels[t] = sets.roots();
  }
  return levels;
}

// mlx5_* and ib* (IPoIB) ports are InfiniBand unless the name says Ethernet (mlx5_eth0).
NicTransport guess_transport(const std::string& name) {
  if (name.find("eth") != std::string::npos) return NicTransport::Ethernet;
  return name.rfind("mlx", 0) == 0 || name.rfind("ib", 0) == 0 ? NicTransport::InfiniBand : NicTransport::Ethernet;
}

// Default CPU by GPU era, after the reference machines: DGX A100 = AMD EPYC, DGX/HGX H100 =
// Sapphire Rapids, DGX B200 = Emerald Rapids; Volta-era and PCIe boxes = Skylake-class UPI.
CpuKind default_cpu(int sm) {
  if (sm >= 100) return CpuKind::IntelEmeraldRapids;
  if (sm >= 90) return CpuKind::IntelSapphireRapids;
  if (sm == 80) return CpuKind::Amd;
  return CpuKind::IntelSkylake;
}

std::string source_stem(std::string_view source) {
  const size_t slash = source.find_last_of("/\\");
  std::string_view base = slash == std::string_view::npos ? source : source.substr(slash + 1);
  if (const size_t dot = base.rfind('.'); dot != std::string_view::npos && dot > 0) base = base.substr(0, dot);
  return base.empty() ? "imported" : std::string(base);
}

struct NvSummary {
  std::set<int> counts;       // NV# counts seen between GPUs
  bool uniform_mesh = false;  // every GPU pair is NV# with one count (>= 2 GPUs)
};

struct NvLinkPlan {
  int nvswitch_links = 0;  // > 0: every GPU joins an NVSwitch fabric with this many links
  std::vector<NvLinkBond> bonds;
};

struct NumaDraft {
  std::vector<int> members;  // endpoints
  int os_id = -1;
  std::string cpu_affinity;
  bool evidence = false;     // some member has NUMA or CPU affinity
};

struct NumaPlan {
  std::vector<NumaNode> nodes;  // sorted by OS NUMA id
  std::vector<int> numa_of;     // per endpoint: index into nodes
};

// ------------------------------------------------------------------------------- importer

class Importer {
 public:
  Importer(std::string_view text, std::string_view source, const TopoImportOptions& options)
      : lines_(split_lines(text)), source_(source), options_(options) {}
  Expected<TopoImportResult> run();

 private:
  Error fail(int line, const std::string& what) const {
    return Error{source_ + ":" + std::to_string(line) + ": " + what};
  }
  int line_number(size_t index) const {
    return index < lines_.size() ? lines_[index].number : static_cast<int>(lines_.size()) + 1;
  }
  Expected<Matrix> select_matrix();
  Expected<Header> parse_header(size_t index) const;
  Status parse_rows(Matrix& m) const;
  Status parse_row(Matrix& m, size_t index, int row) const;
  Status parse_codes(Matrix& m, const TextLine& line, int row) const;
  void read_trailing(Matrix& m, const TextLine& line, size_t from, int row) const;
  Status missing_rows(const Matrix& m, size_t index, int row) const;
  void read_nic_legend(Matrix& m, size_t stop) const;
  Status check_symmetry(const Matrix& m) const;
  Expected<const GpuModel*> resolve_gpu_model(const Matrix& m, const NvSummary& nv);
  Expected<NvLinkPlan> plan_nvlinks(const Matrix& m, const GpuModel& gpu, const NvSummary& nv);
  CpuKind resolve_cpu(const GpuModel& gpu);
  Expected<NumaPlan> plan_numa(const Matrix& m, const Levels& levels, CpuKind cpu);
  Status collect_numa_evidence(const Matrix& m, NumaDraft& draft) const;
  void place_orphan(const Matrix& m, std::vector<NumaDraft>& placed, NumaDraft orphan, std::set<int>& used);
  NodeModel build_model(const Matrix& m, const GpuModel& gpu, const NvLinkPlan& links, const NumaPlan& numa,
                        const Levels& levels);
  Status verify(const Topology& topo, const Matrix& m) const;

  std::vector<TextLine> lines_;
  std::string source_;
  TopoImportOptions options_;
  std::vector<std::string> notes_;
};

Expected<Matrix> Importer::select_matrix() {
  std::vector<size_t> headers;
  for (size_t i = 0; i < lines_.size(); ++i)
    if (is_header(lines_[i])) headers.push_back(i);
  if (headers.empty())
    return fail(1, lines_.empty() ? "empty input: no nvidia-smi topo -m matrix"
                                  : "no nvidia-smi topo -m matrix found (no header line naming GPU0, GPU1, ...)");
  const int count = static_cast<int>(headers.size());
  if (options_.matrix < 1 || options_.matrix > count)
    return fail(lines_[headers.back()].number, "matrix " + std::to_string(options_.matrix) + " requested but the text holds " +
                                                   std::to_string(count) + (count == 1 ? " matrix" : " matrices"));
  if (count > 1)
    notes_.push_back("file holds " + std::to_string(count) + " matrices; imported matrix " + std::to_string(options_.matrix) +
                     " (use --matrix to pick another)");
  const size_t at = headers[options_.matrix - 1];
  Expected<Header> header = parse_header(at);
  if (!header) return header.error();
  Matrix m;
  m.header = std::move(*header);
  if (Status s = parse_rows(m); !s) return s.error();
  read_nic_legend(m, options_.matrix < count ? headers[options_.matrix] : lines_.size());
  return m;
}

Expected<Header> Importer::parse_header(size_t index) const {
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

Status Importer::parse_rows(Matrix& m) const {
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

Status Importer::missing_rows(const Matrix& m, size_t index, int row) const {
  const std::vector<std::string> missing(m.header.devices.begin() + row, m.header.devices.end());
  std::string found = "end of input";
  if (index < lines_.size()) {
    found.clear();
    for (const auto& token : lines_[index].tokens) found += (found.empty() ? "" : " ") + token;
    found = found.empty() ? "a blank line" : "'" + found.substr(0, 48) + "'";
  }
  return fail(line_number(index), "incomplete matrix: expected row " + m.name(row) + ", found " + found +
                                      "; missing rows " + describe_names(missing));
}

Status Importer::parse_row(Matrix& m, size_t index, int row) const {
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

Status Importer::parse_codes(Matrix& m, const TextLine& line, int row) const {
  for (int col = 0; col < m.devices(); ++col) {
    const std::string& token = line.tokens[col + 1];
    const std::string where = "row " + m.name(row) + ", column " + m.name(col);
    const std::optional<LinkCode> code = parse_link_code(token);
    if (!code) return fail(line.number, "unknown link code '" + token + "' in " + where);
    if ((col == row) != (code->cls == LinkClass::Self))
      return fail(line.number, col == row ? "diagonal is " + token + " in " + where + ", expected X"
                                          : "X off the diagonal in " + where);
    if (code->cls == LinkClass::NVLink && (row >= m.header.gpus || col >= m.header.gpus))
      return fail(line.number, token + " in " + where + ": NVLink joins GPUs only");
    m.code[row][col] = *code;
  }
  return {};
}

void Importer::read_trailing(Matrix& m, const TextLine& line, size_t from, int row) const {
  const auto& columns = m.header.trailing;
  for (size_t k = 0; k < columns.size() && from + k < line.tokens.size(); ++k) {
    const std::string& value = line.tokens[from + k];
    if (columns[k] == "CPU Affinity") m.cpu_affinity[row] = value;
    if (columns[k] == "NUMA Affinity") m.numa_affinity[row] = parse_index(value);
  }
}

// "NIC Legend:" lines such as "NIC0: mlx5_0" between the matrix and `stop` rename NIC columns.
void Importer::read_nic_legend(Matrix& m, size_t stop) const {
  m.nic_names.assign(m.header.devices.begin() + m.header.gpus, m.header.devices.end());
  for (size_t i = m.end; i < stop && i < lines_.size(); ++i) {
    const auto& tokens = lines_[i].tokens;
    if (tokens.size() != 2 || tokens[0].size() < 2 || tokens[0].back() != ':') continue;
    const std::string column = tokens[0].substr(0, tokens[0].size() - 1);
    auto it = std::find(m.header.devices.begin() + m.header.gpus, m.header.devices.end(), column);
    if (it != m.header.devices.end()) m.nic_names[it - m.header.devices.begin() - m.header.gpus] = tokens[1];
  }
}

Status Importer::check_symmetry(const Matrix& m) const {
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

NvSummary summarize_nvlinks(const Matrix& m) {
  NvSummary nv;
  bool all_nvlink = m.header.gpus >= 2;
  for (int a = 0; a < m.header.gpus; ++a)
    for (int b = a + 1; b < m.header.gpus; ++b) {
      if (m.code[a][b].cls == LinkClass::NVLink) nv.counts.insert(m.code[a][b].nvlinks);
      else all_nvlink = false;
    }
  nv.uniform_mesh = all_nvlink && nv.counts.size() == 1;
  return nv;
}

// {catalog name, reason} from the NVLink counts, per NVLink ports per GPU (hardware.cpp catalog):
// NV18 -> h100, NV12 -> a100, NV6 over an NVSwitch -> v100-sxm3, NV1/NV2 only -> v100; else {"", ""}.
// REQUIRES: !nv.counts.empty()
std::pair<std::string, std::string> infer_gpu_model(const NvSummary& nv, int gpus) {
  if (nv.counts.count(18)) return {"h100", "NV18 (18 NVLinks per GPU: H100 SXM5)"};
  if (nv.counts.count(12)) return {"a100", "NV12 (12 NVLinks per GPU: A100 SXM4)"};
  if (nv.uniform_mesh && *nv.counts.begin() == 6 && gpus > 2)
    return {"v100-sxm3", "NV6 between every GPU pair (NVSwitch, 6 links per GPU: DGX-2 V100 SXM3)"};
  if (*nv.counts.rbegin() <= 2) return {"v100", "NV1/NV2 direct links (DGX-1-style hybrid cube-mesh of V100 SXM2)"};
  return {"", ""};
}

Expected<const GpuModel*> Importer::resolve_gpu_model(const Matrix& m, const NvSummary& nv) {
  const int line = lines_[m.header.line].number;
  const std::string valid = join(gpu_model_names());
  if (!options_.gpu_model.empty()) {
    if (const GpuModel* model = find_gpu_model(options_.gpu_model)) return model;
    return fail(line, "unknown GPU model '" + options_.gpu_model + "' (valid: " + valid + ")");
  }
  if (nv.counts.empty())
    return fail(line, "cannot infer the GPU model from a matrix without NVLink; pass --gpu-model (one of " + valid + ")");
  const auto [name, why] = infer_gpu_model(nv, m.header.gpus);
  std::vector<std::string> seen;
  for (int c : nv.counts) seen.push_back("NV" + std::to_string(c));
  if (name.empty())
    return fail(line, "cannot infer the GPU model from NVLink counts " + join(seen) + "; pass --gpu-model (one of " + valid + ")");
  notes_.push_back("inferred GPU model " + name + " from " + why + " (use --gpu-model to override)");
  return find_gpu_model(name);
}

// A uniform NV# mesh needing more ports than a GPU has is an NVSwitch fabric; anything else is
// direct bonds, which must fit in each GPU's NVLink ports.
Expected<NvLinkPlan> Importer::plan_nvlinks(const Matrix& m, const GpuModel& gpu, const NvSummary& nv) {
  NvLinkPlan plan;
  const int gpus = m.header.gpus;
  const std::string ports = " but a " + gpu.name + " has " + std::to_string(gpu.max_nvlinks) + " NVLink ports";
  if (nv.uniform_mesh && (gpus - 1) * *nv.counts.begin() > gpu.max_nvlinks) {
    plan.nvswitch_links = *nv.counts.begin();
    if (plan.nvswitch_links > gpu.max_nvlinks)
      return fail(m.row_line[0], "every GPU pair is NV" + std::to_string(plan.nvswitch_links) + ports);
    const std::string links = std::to_string(plan.nvswitch_links);
    notes_.push_back("every GPU pair is NV" + links + " and " + std::to_string(gpus - 1) + " peers x " + links +
                     " links exceed the " + gpu.name + "'s " + std::to_string(gpu.max_nvlinks) +
                     " NVLink ports: modelled as an NVSwitch fabric");
    return plan;
  }
  std::vector<int> used(gpus, 0);
  for (int a = 0; a < gpus; ++a)
    for (int b = a + 1; b < gpus; ++b)
      if (const LinkCode& c = m.code[a][b]; c.cls == LinkClass::NVLink) {
        plan.bonds.push_back({a, b, c.nvlinks});
        used[a] += c.nvlinks, used[b] += c.nvlinks;
      }
  for (int g = 0; g < gpus; ++g)
    if (used[g] > gpu.max_nvlinks)
      return fail(m.row_line[g], "GPU" + std::to_string(g) + " uses " + std::to_string(used[g]) + " NVLinks in this matrix" +
                                     ports + ", and the layout is not one uniform NVSwitch fabric");
  return plan;
}

CpuKind Importer::resolve_cpu(const GpuModel& gpu) {
  if (options_.cpu) return *options_.cpu;
  const CpuKind cpu = default_cpu(gpu.sm);
  notes_.push_back("assumed CPU " + std::string(cpu_kind_name(cpu)) + " (use --cpu): the default for " +
                   sm_architecture(gpu.sm) + "-era nodes");
  return cpu;
}

Status Importer::collect_numa_evidence(const Matrix& m, NumaDraft& draft) const {
  for (int e : draft.members) {
    draft.evidence = draft.evidence || !numa_key(m, e).empty();
    if (draft.cpu_affinity.empty() && m.cpu_affinity[e] != "N/A") draft.cpu_affinity = m.cpu_affinity[e];
    const int id = m.numa_affinity[e];
    if (id < 0 || id == draft.os_id) continue;
    if (draft.os_id >= 0)
      return fail(m.row_line[e], "NUMA evidence conflicts: " + m.name(e) + " has NUMA Affinity " + std::to_string(id) +
                                     " but is NODE-or-closer to " + m.name(draft.members[0]) + " on NUMA " +
                                     std::to_string(draft.os_id));
    draft.os_id = id;
  }
  return {};
}

// A group without NUMA evidence joins the first NUMA node (lowest id) it shows no link to;
// else it gets a NUMA node of its own with the lowest unused id (0 when free).
void Importer::place_orphan(const Matrix& m, std::vector<NumaDraft>& placed, NumaDraft orphan, std::set<int>& used) {
  std::vector<std::string> names;
  for (int e : orphan.members) names.push_back(m.name(e));
  auto shows_link = [&](const NumaDraft& d) {
    for (int a : orphan.members)
      for (int b : d.members)
        if (pcie_level(m.code[a][b]) > 0) return true;
    return false;
  };
  std::sort(placed.begin(), placed.end(), [](const auto& x, const auto& y) { return x.os_id < y.os_id; });
  auto target = std::find_if_not(placed.begin(), placed.end(), shows_link);
  int id = 0;
  if (target != placed.end()) {
    id = target->os_id;
    target->members.insert(target->members.end(), orphan.members.begin(), orphan.members.end());
  } else {
    while (used.count(id)) ++id;
    used.insert(id);
    orphan.os_id = id;
    placed.push_back(std::move(orphan));
  }
  notes_.push_back(describe_names(names) + ": no NUMA evidence (no affinity, no NODE-or-closer link); placed on NUMA node " +
                   std::to_string(id));
}

Expected<NumaPlan> Importer::plan_numa(const Matrix& m, const Levels& levels, CpuKind cpu) {
  std::vector<int> all(m.devices());
  std::iota(all.begin(), all.end(), 0);
  std::vector<NumaDraft> placed, orphans;
  for (auto& members : partition(all, levels[4])) {
    NumaDraft draft{std::move(members), -1, "", false};
    if (Status s = collect_numa_evidence(m, draft); !s) return s.error();
    (draft.evidence ? placed : orphans).push_back(std::move(draft));
  }
  std::set<int> used;
  for (const auto& d : placed) used.insert(d.os_id);
  for (auto& d : placed)
    for (int id = 0; d.os_id < 0; ++id)
      if (used.insert(id).second) d.os_id = id;
  for (auto& orphan : orphans) place_orphan(m, placed, std::move(orphan), used);
  std::sort(placed.begin(), placed.end(), [](const auto& x, const auto& y) { return x.os_id < y.os_id; });
  NumaPlan plan{{}, std::vector<int>(m.devices(), 0)};
  for (const auto& d : placed) {
    for (int e : d.members) plan.numa_of[e] = static_cast<int>(plan.nodes.size());
    plan.nodes.push_back({d.os_id, cpu, d.cpu_affinity});
  }
  return plan;
}

// One host bridge per host-bridge group; in it, a device alone at the top-switch level hangs
// directly off the host bridge, a group sharing one leaf gets one switch, and a group of several
// leaves gets a top switch with one leaf switch per leaf group.
void attach_host_bridges(NodeModelBuilder& b, int numa, const std::vector<int>& members, const Levels& levels,
                         const GpuModel& gpu, std::vector<int>& parent) {
  for (const auto& host_group : partition(members, levels[3])) {
    const int host = b.host_bridge(numa, gpu.pcie_gen, gpu.pcie_width);
    for (const auto& top_group : partition(host_group, levels[2])) {
      const auto leaves = partition(top_group, levels[1]);
      const int top = top_group.size() == 1 ? host : b.pcie_switch(host, gpu.pcie_gen, gpu.pcie_width);
      for (const auto& leaf : leaves) {
        const int bridge = leaves.size() == 1 ? top : b.pcie_switch(top, gpu.pcie_gen, gpu.pcie_width);
        for (int e : leaf) parent[e] = bridge;
      }
    }
  }
}

NodeModel Importer::build_model(const Matrix& m, const GpuModel& gpu, const NvLinkPlan& links, const NumaPlan& numa,
                                const Levels& levels) {
  const std::string name = options_.node_name.empty() ? source_stem(source_) : options_.node_name;
  NodeModelBuilder b(name, "imported from nvidia-smi topo -m (" + source_ + ", matrix " + std::to_string(options_.matrix) +
                               "): " + std::to_string(m.header.gpus) + " x " + gpu.product);
  std::vector<int> parent(m.devices(), 0);
  for (size_t k = 0; k < numa.nodes.size(); ++k) {
    const int index = b.numa(numa.nodes[k].cpu, numa.nodes[k].cpu_affinity);
    std::vector<int> members;
    for (int e = 0; e < m.devices(); ++e)
      if (numa.numa_of[e] == static_cast<int>(k)) members.push_back(e);
    attach_host_bridges(b, index, members, levels, gpu, parent);
  }
  for (int g = 0; g < m.header.gpus; ++g) b.gpu(parent[g], gpu.name, links.nvswitch_links);
  for (size_t k = 0; k < m.nic_names.size(); ++k) {
    const std::string& nic = m.nic_names[k];
    b.nic(parent[m.header.gpus + k], nic, options_.nic_speed_gbit, guess_transport(nic), gpu.pcie_gen);
  }
  for (const NvLinkBond& bond : links.bonds) b.nvlink(bond.gpu_a, bond.gpu_b, bond.count);
  NodeModel model = b.take();
  for (size_t k = 0; k < numa.nodes.size(); ++k) model.numa_nodes[k].id = numa.nodes[k].id;
  if (!m.nic_names.empty())
    notes_.push_back("assumed NIC speed " + std::to_string(static_cast<int>(options_.nic_speed_gbit)) +
                     " Gb/s (use --nic-speed) and transport from the names (mlx5/ib InfiniBand, else Ethernet)");
  return model;
}

Status Importer::verify(const Topology& topo, const Matrix& m) const {
  const int gpus = m.header.gpus;
  auto pair = [&](int a, int b) -> const PairLink& {
    if (a < gpus && b < gpus) return topo.gpu_pair(a, b);
    if (a < gpus) return topo.gpu_nic(a, b - gpus);
    return topo.nic_pair(a - gpus, b - gpus);
  };
  for (int a = 0; a < m.devices(); ++a)
    for (int b = a + 1; b < m.devices(); ++b) {
      const LinkCode& want = m.code[a][b];
      const PairLink& got = pair(a, b);
      if (got.cls == want.cls && (want.cls != LinkClass::NVLink || got.nvlinks == want.nvlinks)) continue;
      return fail(m.row_line[a], "evidence is not tree-consistent: " + m.name(a) + "/" + m.name(b) + " is " +
                                     link_code(want.cls, want.nvlinks) + " in the file but the reconstructed PCIe tree gives " +
                                     link_code(got.cls, got.nvlinks));
    }
  return {};
}

Expected<TopoImportResult> Importer::run() {
  Expected<Matrix> matrix = select_matrix();
  if (!matrix) return matrix.error();
  const Matrix& m = *matrix;
  if (Status s = check_symmetry(m); !s) return s.error();
  const NvSummary nv = summarize_nvlinks(m);
  Expected<const GpuModel*> gpu = resolve_gpu_model(m, nv);
  if (!gpu) return gpu.error();
  Expected<NvLinkPlan> links = plan_nvlinks(m, **gpu, nv);
  if (!links) return links.error();
  const CpuKind cpu = resolve_cpu(**gpu);
  const Levels levels = group_levels(m);
  Expected<NumaPlan> numa = plan_numa(m, levels, cpu);
  if (!numa) return numa.error();
  NodeModel model = build_model(m, **gpu, *links, *numa, levels);
  Expected<Topology> topo = Topology::build(model);
  if (!topo) return fail(lines_[m.header.line].number, "imported model is invalid: " + topo.error().message);
  if (Status s = verify(*topo, m); !s) return s.error();
  return TopoImportResult{std::move(model), std::move(notes_)};
}

}  // namespace

Expected<TopoImportResult> import_topo_m(std::string_view text, std::string_view source_name,
                                          const TopoImportOptions& options) {
  return Importer(text, source_name, options).run();
}

}  // namespace topsim
