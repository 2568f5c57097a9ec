#include "formats/support/k8s_quantity.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>

namespace topsim {
namespace {

// 128-bit integers (a GCC and Clang extension): exact products of a 19-digit mantissa and 2^60.
__extension__ typedef __int128 Int128;

// value = (negative ? -1 : 1) * mantissa * 10^decimal_exponent * 2^binary_exponent
struct ExactQuantity {
  bool negative = false;
  Int128 mantissa = 0;  // at most kMaxDigits decimal digits
  int decimal_exponent = 0;
  int binary_exponent = 0;
};

constexpr int kMaxDigits = 19;

Error not_a_quantity(std::string_view text, const char* why) {
  return Error{"'" + std::string(text) + "' is not a Kubernetes quantity (" + why + "; e.g. 8, 500m, 1.5Gi, 1e3, 64G)"};
}

// apimachinery suffix.go: the binary SI and decimal SI suffixes. False when `suffix` is neither.
bool si_suffix(std::string_view suffix, ExactQuantity& q) {
  static constexpr std::pair<std::string_view, int> kBinary[] = {{"Ki", 10}, {"Mi", 20}, {"Gi", 30},
                                                                 {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  static constexpr std::pair<std::string_view, int> kDecimal[] = {{"n", -9}, {"u", -6}, {"m", -3}, {"", 0},   {"k", 3},
                                                                  {"M", 6},  {"G", 9},  {"T", 12}, {"P", 15}, {"E", 18}};
  for (const auto& [name, exponent] : kBinary)
    if (suffix == name) return q.binary_exponent = exponent, true;
  for (const auto& [name, exponent] : kDecimal)
    if (suffix == name) return q.decimal_exponent += exponent, true;
  return false;
}

// "e3", "E-2", "e+6": a decimal exponent (a bare "E" is exa, read by si_suffix first).
bool exponent_suffix(std::string_view suffix, ExactQuantity& q) {
  if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) return false;
  std::string_view digits = suffix.substr(1);
  const bool minus = digits[0] == '-';
  if (digits[0] == '+' || digits[0] == '-') digits.remove_prefix(1);
  int exponent = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), exponent);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || exponent > 1000) return false;
  q.decimal_exponent += minus ? -exponent : exponent;
  return true;
}

Expected<ExactQuantity> parse_exact(std::string_view text) {
  ExactQuantity q;
  size_t pos = 0;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) q.negative = text[pos++] == '-';
  int digits = 0, significant = 0, fraction_digits = 0, pending_zeros = 0;  // zeros after the last non-zero digit
  bool in_fraction = false;
  for (; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (c == '.' && !in_fraction) {
      in_fraction = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    ++digits;
    if (in_fraction) ++fraction_digits;
    if (c == '0') {
      pending_zeros += significant > 0 ? 1 : 0;
      continue;
    }
    significant += pending_zeros + 1;
    if (significant > kMaxDigits) return not_a_quantity(text, "more than 19 significant digits");
    for (; pending_zeros > 0; --pending_zeros) q.mantissa *= 10;
    q.mantissa = q.mantissa * 10 + (c - '0');
  }
  if (digits == 0) return not_a_quantity(text, "no number");
  q.decimal_exponent = pending_zeros - fraction_digits;
  const std::string_view suffix = text.substr(pos);
  if (!si_suffix(suffix, q) && !exponent_suffix(suffix, q)) return not_a_quantity(text, "unknown suffix");
  return q;
}

// 10^n for 0 <= n <= 38 (fits in a signed 128-bit integer).
Int128 power_of_ten(int n) {
  Int128 p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

}  // namespace

Expected<int64_t> parse_quantity(std::string_view text, int scale) {
  auto parsed = parse_exact(text);
  if (!parsed) return parsed.error();
  const ExactQuantity& q = *parsed;
  if (q.mantissa == 0) return int64_t{0};
  constexpr Int128 kMax = std::numeric_limits<int64_t>::max();
  const Error too_large{"'" + std::string(text) + "' is too large (more than 2^63-1 " + (scale == 3 ? "thousandths" : "units") +
                        ")"};
  // mantissa < 10^19 and 2^binary_exponent <= 2^60: the product fits in 128 bits.
  Int128 numerator = q.mantissa << q.binary_exponent;
  const int exponent = q.decimal_exponent + scale;
  Int128 magnitude = 0;
  if (exponent >= 0) {
    magnitude = numerator;
    for (int i = 0; i < exponent; ++i)
      if ((magnitude *= 10) > kMax) return too_large;
  } else if (-exponent > 38) {
    magnitude = 1;  // a positive amount far below one unit: rounded up to one
  } else {
    const Int128 denominator = power_of_ten(-exponent);
    magnitude = numerator / denominator + (numerator % denominator != 0 ? 1 : 0);  // rounded up (Value, MilliValue)
  }
  if (magnitude > kMax) return too_large;
  return static_cast<int64_t>(q.negative ? -magnitude : magnitude);
}

Expected<double> parse_quantity_number(std::string_view text) {
  auto parsed = parse_exact(text);
  if (!parsed) return parsed.error();
  const long double value = static_cast<long double>(parsed->mantissa) * std::pow(10.0L, parsed->decimal_exponent) *
                            std::ldexp(1.0L, parsed->binary_exponent);
  if (!std::isfinite(static_cast<double>(value))) return Error{"'" + std::string(text) + "' is too large"};
  return static_cast<double>(parsed->negative ? -value : value);
}

int kueue_scale(std::string_view resource) { return resource == "cpu" ? 3 : 0; }

}  // namespace topsim
