// Reading JSON input in the sim loaders (job lists, workload sections, scenarios) with errors
// that name the source and the JSON pointer:
//   "scenario.json: /workload/jobs/3/model: unknown model 'vgg61' (did you mean 'vgg16'?)".
// Private to sim: it exposes nlohmann::json, which public sim headers never include. Other sim
// .cpp files may include it (the scenario loader hands parsed sections to the workload readers
// as JsonAt); core and the CLI may not.
#pragma once

#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.h"

namespace topsim {

// A value inside a parsed JSON document and its RFC 6901 pointer ("" = the document root).
// REQUIRES: the document outlives the view.
struct JsonAt {
  const nlohmann::json* value = nullptr;
  std::string pointer;

  // REQUIRES: `value` is an object holding `key` / an array longer than `index`.
  JsonAt member(std::string_view key) const;
  JsonAt element(size_t index) const;
};

// Parses `text`; a syntax error reads "<source>:<line>:<column>: <reason>", a key repeated in
// one object "<source>: <pointer of the key>: duplicate key ...". Never throws.
Expected<nlohmann::json> parse_json_text(std::string_view text, std::string_view source);

// What a nlohmann exception says, without its "[json.exception.type_error.302] " prefix (users
// never see the library's names): "type must be array, but is string".
std::string json_exception_text(const std::exception& e);

// How a found value appears in an error: scalars as (shortened) JSON text, else "an object" /
// "an array".
std::string describe_json(const nlohmann::json& value);

// The first error of one read: "<source>: <pointer>: <what>" (pointer "/" for the root).
// Readers carry on with fallback values after a failure; the caller checks failed() once.
class JsonErrors {
 public:
  explicit JsonErrors(std::string_view source) : source_(source) {}
  void fail(std::string_view pointer, std::string_view what);
  bool failed() const { return error_.has_value(); }
  // REQUIRES: failed()
  const Error& error() const { return *error_; }

 private:
  std::string source_;
  std::optional<Error> error_;
};

// Scalars at a pointer: nullopt after failing "must be an integer in 1..65535, got -2" when the
// value has the wrong type or lies outside [min, max].
std::optional<int64_t> json_integer(JsonErrors& errors, const JsonAt& at, int64_t min, int64_t max);
std::optional<double> json_number(JsonErrors& errors, const JsonAt& at, double min, double max);
std::optional<std::string> json_string(JsonErrors& errors, const JsonAt& at);

// Typed access to the members of one JSON object. Construction fails (once) when the value is
// not an object, and for every key outside `allowed` ("unknown key (allowed: a, b; did you
// mean 'x'?)"). Accessors of an absent key return nullopt without failing.
class JsonObject {
 public:
  JsonObject(JsonErrors& errors, JsonAt at, const std::vector<std::string>& allowed);

  bool is_object() const { return object_ != nullptr; }
  bool has(std::string_view key) const;
  std::string pointer(std::string_view key) const;
  std::optional<JsonAt> member(std::string_view key) const;
  const JsonAt& at() const { return at_; }
  void fail(std::string_view key, std::string_view what) const;
  // Fails "missing required key" unless present; returns whether it is.
  bool require(std::string_view key) const;

  std::optional<int64_t> integer(std::string_view key, int64_t min, int64_t max) const;
  std::optional<double> number(std::string_view key, double min, double max) const;
  // A finite number > 0 ("must be a positive number, got 0").
  std::optional<double> positive_number(std::string_view key) const;
  std::optional<std::string> string(std::string_view key) const;

 private:
  JsonErrors& errors_;
  JsonAt at_;
  const nlohmann::json* object_ = nullptr;
};

}  // namespace topsim
