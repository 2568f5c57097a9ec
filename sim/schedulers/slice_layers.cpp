#include "sim/schedulers/slice_layers.h"

#include <cctype>
#include <limits>

namespace topsim {
namespace {

// A reader of the one JSON shape the annotation takes (RFC 8259 whitespace, strings and
// integers); anything else is an error naming what it found and where (characters from 1).
class ConstraintReader {
 public:
  explicit ConstraintReader(const std::string& text) : text_(text) {}

  Expected<std::vector<SliceConstraint>> read() {
    std::vector<SliceConstraint> layers;
    expect('[', "'['");
    if (!peek(']')) {
      do layers.push_back(object());
      while (error_.empty() && take(','));
    }
    expect(']', "',' or ']'");
    skip_space();
    if (error_.empty() && pos_ < text_.size()) fail("nothing after the array");
    if (!error_.empty())
      return Error{"not a JSON array of {\"topology\": <level>, \"size\": <pods>}: " + error_ +
                   (error_at_ < text_.size() ? " at character " + std::to_string(error_at_ + 1) : "")};
    return layers;
  }

 private:
  SliceConstraint object() {
    SliceConstraint layer;
    bool has_topology = false, has_size = false;
    const size_t start = (skip_space(), pos_);
    if (!expect('{', "'{'")) return layer;
    if (!peek('}')) {
      do {
        const size_t at = (skip_space(), pos_);
        const std::string name = string();
        if (!error_.empty() || !expect(':', "':'")) break;
        if (name == "topology" && !has_topology) {
          layer.topology = string(), has_topology = true;
        } else if (name == "size" && !has_size) {
          layer.size = integer(), has_size = true;
        } else {
          fail(name == "topology" || name == "size" ? "\"" + name + "\" given twice"
                                                    : "member \"" + name + "\" (only \"topology\" and \"size\" are read)",
               at);
        }
      } while (error_.empty() && take(','));
    }
    expect('}', "',' or '}'");
    if (error_.empty() && (!has_topology || !has_size))
      fail(has_topology ? "an entry without \"size\"" : "an entry without \"topology\"", start);
    return layer;
  }

  std::string string() {
    if (!expect('"', "a string")) return {};
    const size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      const unsigned char c = static_cast<unsigned char>(text_[pos_]);
      if (c == '\\' || c < 0x20) return fail("a character a label name does not have"), std::string{};
      ++pos_;
    }
    if (pos_ >= text_.size()) return fail("an unterminated string", start - 1), std::string{};
    return text_.substr(start, pos_++ - start);
  }

  int integer() {
    skip_space();
    const size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    const size_t digits = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    const bool whole = pos_ > digits && (text_[digits] != '0' || pos_ == digits + 1) &&
                       (pos_ >= text_.size() || (text_[pos_] != '.' && text_[pos_] != 'e' && text_[pos_] != 'E'));
    if (!whole) return fail("a size that is not a whole number of pods", start), 0;
    const long long value = pos_ - digits > 10 ? 0 : std::stoll(text_.substr(start, pos_ - start));
    if (pos_ - digits > 10 || value > std::numeric_limits<int>::max() || value < std::numeric_limits<int>::min())
      return fail("a size out of range", start), 0;
    return static_cast<int>(value);
  }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool peek(char c) { return skip_space(), error_.empty() && pos_ < text_.size() && text_[pos_] == c; }
  bool take(char c) { return peek(c) ? (++pos_, true) : false; }
  bool expect(char c, const char* what) {
    if (!error_.empty()) return false;
    if (take(c)) return true;
    fail(pos_ < text_.size() ? std::string("'") + text_[pos_] + "' where " + what + " was expected"
                             : std::string(what) + " expected where the text ends");
    return false;
  }
  void fail(const std::string& what) { fail(what, pos_); }
  void fail(const std::string& what, size_t at) {
    if (error_.empty()) error_ = what, error_at_ = at;
  }

  const std::string& text_;
  size_t pos_ = 0;
  std::string error_;
  size_t error_at_ = 0;
};

}  // namespace

Expected<std::vector<SliceConstraint>> parse_slice_constraints(const std::string& text) { return ConstraintReader(text).read(); }

}  // namespace topsim
