#include "util/nesting.h"

#include <utility>
#include <vector>

namespace topsim {

std::optional<size_t> first_too_deep_bracket(std::string_view text, size_t max_depth, bool single_quotes) {
  size_t depth = 0;
  char quote = 0;  // the quote of the string being read, 0 outside strings
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote == '"') {
      if (c == '\\')
        ++i;
      else if (c == '"')
        quote = 0;
      continue;
    }
    if (quote == '\'') {
      if (c == '\'') quote = 0;  // '' reads as closing then reopening: the same for depth
      continue;
    }
    if (c == '"' || (single_quotes && c == '\'')) {
      quote = c;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

namespace {

// The YAML scan of first_too_deep_yaml_line, one line at a time.
class YamlDepthScan {
 public:
  explicit YamlDepthScan(size_t max_depth) : max_depth_(max_depth) {}

  // Whether the nesting is beyond the limit after `line`.
  bool too_deep_after(std::string_view line) {
    if (in_block_scalar(line)) return false;
    if (quote_ != 0 || flow_ > 0) return scan_inline(line, line.find_first_not_of(' '));
    size_t pos = line.find_first_not_of(' ');
    if (pos == std::string_view::npos || line[pos] == '#' || line[pos] == '\t') return false;
    if (const char kind = node_kind(line, pos)) enter_block(pos, kind);
    while (entry_indicator(line, pos)) {  // "- - x", "- key: v", "? - x": a level per collection
      pos = line.find_first_not_of(' ', pos + 1);
      if (pos == std::string_view::npos) break;
      if (const char kind = node_kind(line, pos)) blocks_.emplace_back(pos, kind);
    }
    if (depth() > max_depth_) return true;
    if (pos != std::string_view::npos && scan_inline(line, pos)) return true;
    if (quote_ == 0 && flow_ == 0 && !blocks_.empty() && opens_block_scalar(line)) block_scalar_parent_ = blocks_.back().first;
    return false;
  }

 private:
  size_t depth() const { return blocks_.size() + flow_; }

  static bool entry_indicator(std::string_view line, size_t pos) {
    return pos < line.size() && (line[pos] == '-' || line[pos] == '?') && (pos + 1 == line.size() || line[pos + 1] == ' ');
  }

  // What starts at `pos`: 's' a block sequence entry, 'm' a mapping key (": " or a final ':'
  // before any comment), 0 a scalar or a flow collection (no block level).
  static char node_kind(std::string_view line, size_t pos) {
    if (entry_indicator(line, pos)) return 's';
    const std::string_view rest = line.substr(pos, line.find(" #", pos) - pos);
    if (rest.find(": ") != std::string_view::npos || (!rest.empty() && rest.back() == ':')) return 'm';
    return 0;
  }

  // A block node starting at column `indent`: leaves the deeper blocks, opens a level when deeper
  // than the current one, or when a sequence starts at its mapping key's column.
  void enter_block(size_t indent, char kind) {
    while (!blocks_.empty() && blocks_.back().first > indent) blocks_.pop_back();
    if (!blocks_.empty() && blocks_.back().first == indent && blocks_.back().second != kind) {
      if (kind == 's') return blocks_.emplace_back(indent, kind), void();
      blocks_.pop_back();  // a key after a sequence at its column: the sequence has ended
    }
    if (blocks_.empty() || blocks_.back().first < indent) blocks_.emplace_back(indent, kind);
  }

  // Quotes, comments and flow brackets from `pos` on; a quote or bracket opens only where a
  // token starts (a plain scalar such as "it's" or "a[1]" holds them as text).
  bool scan_inline(std::string_view line, size_t pos) {
    bool token_start = true;
    for (size_t i = pos; i < line.size() && i != std::string_view::npos; ++i) {
      const char c = line[i];
      if (quote_ != 0) {
        if (c == '\\' && quote_ == '"')
          ++i;
        else if (c == quote_)
          quote_ = 0;
        continue;
      }
      if (c == '#' && (i == 0 || line[i - 1] == ' ')) return false;
      const bool opens = (c == '[' || c == '{') && (token_start || flow_ > 0);
      if (opens && ++flow_ + blocks_.size() > max_depth_) return true;
      if ((c == ']' || c == '}') && flow_ > 0) --flow_;
      if ((c == '"' || c == '\'') && token_start) quote_ = c;
      if (c != ' ') token_start = opens || (c == ',' && flow_ > 0) || (c == ':' && (i + 1 == line.size() || line[i + 1] == ' '));
    }
    return false;
  }

  // A line ending in a block scalar's header ("key: |", "- >-", "run: |2+").
  static bool opens_block_scalar(std::string_view line) {
    const size_t comment = line.find(" #");
    std::string_view text = line.substr(0, comment);
    while (!text.empty() &&
           (text.back() == ' ' || text.back() == '+' || text.back() == '-' || (text.back() >= '0' && text.back() <= '9')))
      text.remove_suffix(1);
    return text.size() >= 2 && (text.back() == '|' || text.back() == '>') && (text[text.size() - 2] == ' ');
  }

  // Whether `line` is content of a block scalar (blank, or deeper than the node holding it).
  bool in_block_scalar(std::string_view line) {
    if (block_scalar_parent_ == kNoBlockScalar) return false;
    const size_t indent = line.find_first_not_of(' ');
    if (indent == std::string_view::npos || indent > block_scalar_parent_) return true;
    block_scalar_parent_ = kNoBlockScalar;
    return false;
  }

  size_t max_depth_;
  std::vector<std::pair<size_t, char>> blocks_;  // open block collections: column, 'm' mapping or 's' sequence
  size_t flow_ = 0;                              // open flow collections
  char quote_ = 0;                               // the quote of a scalar running on, 0 outside
  static constexpr size_t kNoBlockScalar = static_cast<size_t>(-1);
  size_t block_scalar_parent_ = kNoBlockScalar;  // the column of the node whose block scalar is being read
};

}  // namespace

std::optional<size_t> first_too_deep_yaml_line(std::string_view yaml, size_t max_depth) {
  YamlDepthScan scan(max_depth);
  size_t line_number = 0;
  for (size_t start = 0; start < yaml.size(); ++line_number) {
    size_t end = yaml.find('\n', start);
    if (end == std::string_view::npos) end = yaml.size();
    std::string_view line = yaml.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (scan.too_deep_after(line)) return line_number;
    start = end + 1;
  }
  return std::nullopt;
}

}  // namespace topsim
