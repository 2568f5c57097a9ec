#include "formats/support/json_reader.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "util/nesting.h"
#include "util/one_line.h"
#include "util/suggest.h"

namespace topsim {
namespace {

using Json = nlohmann::json;

// RFC 6901: '~' -> "~0", '/' -> "~1".
std::string pointer_token(std::string_view key) {
  std::string token;
  for (char c : key) {
    if (c == '~')
      token += "~0";
    else if (c == '/')
      token += "~1";
    else
      token += c;
  }
  return token;
}

// "<source>:<line>:<column>" of the 1-based byte offset `byte` in `text`.
std::string text_position(std::string_view text, std::string_view source, size_t byte) {
  const size_t end = std::min(byte > 0 ? byte - 1 : 0, text.size());
  size_t line = 1, column = 1;
  for (size_t i = 0; i < end; ++i) {
    if (text[i] == '\n')
      ++line, column = 1;
    else
      ++column;
  }
  return std::string(source) + ":" + std::to_string(line) + ":" + std::to_string(column);
}

// nlohmann's what() starts "[json.exception.parse_error.101] parse error at line 1, column 2: ";
// keep the reason after the last ": ".
std::string parse_reason(const Json::parse_error& e) {
  const std::string what = e.what();
  const size_t colon = what.find(": ");
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

// Whole numbers without a fraction ("0", not "0.0"), others as JSON writes them.
std::string number_text(double v) {
  if (std::abs(v) < 1e15 && v == std::floor(v)) return std::to_string(static_cast<int64_t>(v));
  return Json(v).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
std::string number_text(int64_t v) { return std::to_string(v); }

template <class Number>
std::string range_text(Number min, Number max) {
  auto text = [](Number v) { return number_text(v); };
  if (max >= std::numeric_limits<Number>::max()) return ">= " + text(min);
  return "in " + text(min) + ".." + text(max);
}

// Finds the first key repeated within one object (nlohmann keeps the last silently), as the
// JSON pointer of the repeated key.
class DuplicateKeyFinder : public nlohmann::json_sax<Json> {
 public:
  std::optional<std::string> duplicate;

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(true); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_array() override { return close(); }
  bool key(string_t& key) override {
    Frame& frame = frames_.back();
    if (!frame.keys.insert(key).second) {
      duplicate = pointer_to_parent() + "/" + pointer_token(key);
      return false;
    }
    frame.key = key;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  struct Frame {
    bool object = false;
    std::set<std::string> keys;
    std::string key;   // object: the member being read
    size_t index = 0;  // array: the element being read
  };
  bool value() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
    return true;
  }
  bool open(bool object) {
    frames_.push_back(Frame{object, {}, {}, 0});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return value();
  }
  // The pointer of the innermost open object or array.
  std::string pointer_to_parent() const {
    std::string pointer;
    for (size_t i = 0; i + 1 < frames_.size(); ++i)
      pointer += "/" + (frames_[i].object ? pointer_token(frames_[i].key) : std::to_string(frames_[i].index));
    return pointer;
  }
  std::vector<Frame> frames_;
};

}  // namespace

JsonAt JsonAt::member(std::string_view key) const {
  return JsonAt{&value->at(std::string(key)), pointer + "/" + pointer_token(key)};
}

JsonAt JsonAt::element(size_t index) const { return JsonAt{&value->at(index), pointer + "/" + std::to_string(index)}; }

Expected<Json> parse_json_text(std::string_view text, std::string_view source) {
  if (const auto deep = first_too_deep_bracket(text))
    return Error{text_position(text, source, *deep + 1) + ": invalid JSON: nested more than " + std::to_string(kMaxNestingDepth) +
                 " levels deep"};
  try {
    Json json = Json::parse(text.begin(), text.end());
    DuplicateKeyFinder finder;
    Json::sax_parse(text.begin(), text.end(), &finder);
    if (finder.duplicate)
      return Error{std::string(source) + ": " + *finder.duplicate + ": duplicate key (a key may appear once per object)"};
    return json;
  } catch (const Json::parse_error& e) {
    return Error{text_position(text, source, e.byte) + ": " + parse_reason(e)};
  } catch (const Json::out_of_range& e) {
    // A number beyond a double ("number overflow parsing '1e400'"): nlohmann gives no position,
    // so the number is looked up in the text.
    const std::string what = e.what();
    const size_t open = what.find('\''), close = what.rfind('\'');
    if (open != std::string::npos && close > open) {
      const std::string number = what.substr(open + 1, close - open - 1);
      if (const size_t at = text.find(number); at != std::string_view::npos)
        return Error{text_position(text, source, at + 1) + ": invalid JSON: the number " + number + " is out of range"};
    }
    return Error{std::string(source) + ": invalid JSON: a number is out of range"};
  } catch (const Json::exception& e) {
    return Error{std::string(source) + ": invalid JSON: " + json_exception_text(e)};
  }
}

std::string json_exception_text(const std::exception& e) {
  const std::string what = e.what();
  const size_t end = what.rfind("[json.exception.", 0) == 0 ? what.find("] ") : std::string::npos;
  return end == std::string::npos ? what : what.substr(end + 2);
}

std::string describe_json(const Json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  const std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return text.size() > 40 ? text.substr(0, 37) + "..." : text;
}

void JsonErrors::fail(std::string_view pointer, std::string_view what) {
  if (error_) return;
  error_ = Error{source_ + ": " + (pointer.empty() ? std::string("/") : quoted_pointer(pointer)) + ": " + std::string(what)};
}

std::optional<int64_t> json_integer(JsonErrors& errors, const JsonAt& at, int64_t min, int64_t max) {
  const Json& v = *at.value;
  const bool integral = v.is_number_integer();  // signed or unsigned, not float
  const bool in_int64 =
      integral && (!v.is_number_unsigned() || v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
  const int64_t value = in_int64 ? v.get<int64_t>() : 0;
  if (!in_int64 || value < min || value > max) {
    errors.fail(at.pointer, "must be an integer " + range_text(min, max) + ", got " + describe_json(v));
    return std::nullopt;
  }
  return value;
}

std::optional<double> json_number(JsonErrors& errors, const JsonAt& at, double min, double max) {
  const Json& v = *at.value;
  const double value = v.is_number() ? v.get<double>() : std::nan("");
  if (!(value >= min && value <= max)) {
    errors.fail(at.pointer, "must be a number " + range_text(min, max) + ", got " + describe_json(v));
    return std::nullopt;
  }
  return value;
}

std::optional<std::string> json_string(JsonErrors& errors, const JsonAt& at) {
  if (at.value->is_string()) return at.value->get<std::string>();
  errors.fail(at.pointer, "must be a string, got " + describe_json(*at.value));
  return std::nullopt;
}

JsonObject::JsonObject(JsonErrors& errors, JsonAt at, const std::vector<std::string>& allowed)
    : errors_(errors), at_(std::move(at)) {
  if (!at_.value->is_object()) {
    errors_.fail(at_.pointer, "must be an object, got " + describe_json(*at_.value));
    return;
  }
  object_ = at_.value;
  for (const auto& [key, value] : object_->items())
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      const auto close = closest_name(key, allowed);
      fail(key, "unknown key (allowed: " + join_names(allowed) + ")" + (close ? "; did you mean '" + *close + "'?" : ""));
    }
}

bool JsonObject::has(std::string_view key) const { return object_ && object_->contains(std::string(key)); }

std::string JsonObject::pointer(std::string_view key) const { return at_.pointer + "/" + pointer_token(key); }

std::optional<JsonAt> JsonObject::member(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return at_.member(key);
}

void JsonObject::fail(std::string_view key, std::string_view what) const { errors_.fail(pointer(key), what); }

bool JsonObject::require(std::string_view key) const {
  if (!is_object() || has(key)) return is_object();
  fail(key, "missing required key");
  return false;
}

std::optional<int64_t> JsonObject::integer(std::string_view key, int64_t min, int64_t max) const {
  const auto at = member(key);
  return at ? json_integer(errors_, *at, min, max) : std::nullopt;
}

std::optional<double> JsonObject::number(std::string_view key, double min, double max) const {
  const auto at = member(key);
  return at ? json_number(errors_, *at, min, max) : std::nullopt;
}

std::optional<double> JsonObject::positive_number(std::string_view key) const {
  const auto at = member(key);
  if (!at) return std::nullopt;
  const Json& v = *at->value;
  const double value = v.is_number() ? v.get<double>() : 0;
  if (value > 0 && std::isfinite(value)) return value;
  errors_.fail(at->pointer, "must be a positive number, got " + describe_json(v));
  return std::nullopt;
}

std::optional<std::string> JsonObject::string(std::string_view key) const {
  const auto at = member(key);
  return at ? json_string(errors_, *at) : std::nullopt;
}

}  // namespace topsim
