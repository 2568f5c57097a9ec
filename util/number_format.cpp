#include "util/number_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace topsim {
namespace {

// `value` with `decimals` decimals (correctly rounded), trailing zeros and a bare point dropped.
std::string fixed_trimmed(double value, int decimals) {
  char buffer[400];  // the largest double in fixed notation: 309 digits, plus decimals
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, decimals);
  std::string text(buffer, result.ptr);
  if (text.find('.') != std::string::npos) {
    text.erase(text.find_last_not_of('0') + 1);
    if (!text.empty() && text.back() == '.') text.pop_back();
  }
  return text == "-0" ? "0" : text;
}

// `text` with commas between the thousands of its first run of digits: "-82245.5" -> "-82,245.5".
std::string grouped(const std::string& text) {
  const size_t first = std::min(text.find_first_of("0123456789"), text.size());
  const size_t end = std::min(text.find_first_not_of("0123456789", first), text.size());
  std::string out = text.substr(0, first);
  for (size_t i = first; i < end; ++i) {
    if (i > first && (end - i) % 3 == 0) out += ',';
    out += text[i];
  }
  return out + text.substr(end);
}

}  // namespace

double rounded_micro(double value) { return std::round(value * 1e6) / 1e6; }

std::string format_number(double value) {
  if (!std::isfinite(value)) return "n/a";
  const double size = std::abs(value);
  return grouped(fixed_trimmed(value, size >= 1000 ? 1 : size >= 10 ? 2 : size >= 1 ? 3 : 4));
}

std::string format_share_percent(double percent) {
  if (!std::isfinite(percent)) return "n/a";
  if (percent > 0 && percent < 0.05) return "<0.1%";
  if (percent > 99.95 && percent < 100) return ">99.9%";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", percent == 0 ? 0.0 : percent);
  return text;
}

std::string format_count(long long count) { return grouped(std::to_string(count)); }

std::string format_fixed(double value, int decimals) {
  if (!std::isfinite(value)) return "n/a";
  char buffer[400];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, decimals);
  return grouped(std::string(buffer, result.ptr));
}

std::string format_change_percent(double percent) {
  if (!std::isfinite(percent)) return "n/a";
  char text[32];
  const double size = std::abs(percent);
  std::snprintf(text, sizeof text, size == 0 || size >= 0.05 ? "%+.1f%%" : size >= 0.0005 ? "%+.2g%%" : "%+.3f%%", percent);
  return text;
}

std::string format_data(double value, std::string_view not_finite) {
  return std::isfinite(value) ? fixed_trimmed(value, 6) : std::string(not_finite);
}

std::optional<double> parse_duration_s(std::string_view text) {
  if (text.size() < 2) return std::nullopt;
  double unit_s = 0;
  switch (text.back()) {
    case 's': unit_s = 1; break;
    case 'm': unit_s = 60; break;
    case 'h': unit_s = 3600; break;
    case 'd': unit_s = 86400; break;
    default: return std::nullopt;
  }
  const std::string_view number = text.substr(0, text.size() - 1);
  double value = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size() || !std::isfinite(value) || value < 0) return std::nullopt;
  return value * unit_s;
}

}  // namespace topsim
