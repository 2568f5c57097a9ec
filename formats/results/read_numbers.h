// The numbers results.json and jobs.jsonl are read back with: each field's range, and the
// check that a value is a number inside it. Private to formats/results (it exposes
// nlohmann::json): results_json_read.cpp and jobs_jsonl_read.cpp include it.
#pragma once

#include <cmath>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>

namespace topsim::results_read {

// The ranges numbers are read in: any, a count cast to int, seconds whose milliseconds fit in
// 64 bits, a count of at most 2^53 (exact in a double).
inline constexpr double kAnyNumber = std::numeric_limits<double>::max();
inline constexpr double kInt = std::numeric_limits<int32_t>::max();
inline constexpr double kSeconds = 9e12;
inline constexpr double kExact = 9007199254740992.0;

inline std::string bound_text(double v) {
  if (v == kAnyNumber || v == -kAnyNumber) return v > 0 ? "max" : "-max";
  std::ostringstream out;
  out << std::setprecision(15) << v;
  return out.str();
}

// `v` as a number within [lo, hi]; nullopt when it is no number or outside.
inline std::optional<double> number_within(const nlohmann::json& v, double lo, double hi) {
  const double value = v.is_number() ? v.get<double>() : std::nan("");
  return value >= lo && value <= hi ? std::optional(value) : std::nullopt;
}
inline std::string range_text(double lo, double hi) { return "a number in " + bound_text(lo) + ".." + bound_text(hi); }

}  // namespace topsim::results_read
