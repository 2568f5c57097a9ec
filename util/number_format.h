// How numbers are written: in files topsim writes (rounded to 1e-6, so that outputs do not
// depend on the last bits of a floating-point sum) and in text a user reads.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace topsim {

// `value` rounded to 1e-6: every figure in results.json, jobs.jsonl, baselines and plans.
double rounded_micro(double value);

// A figure for people: 4 significant decimals below 1, 3 below 10, 2 below 1000, else 1;
// trailing zeros dropped, the whole part grouped by thousands ("1,472", "82,245.5", "0.95",
// "88.89"); "n/a" when not finite. Never for files a program reads (format_data, rounded_micro).
std::string format_number(double value);

// A relative change for people, signed, in percent: one decimal ("+3.4%", "-12.0%"), but a change
// that one decimal would show as 0.0 keeps two significant digits ("-0.019%"), down to three
// decimals ("+0.000%" below 0.0005%); exactly 0 is "+0.0%".
std::string format_change_percent(double percent);

// A part of a whole for people, in percent, one decimal so a column lines up: "87.9%", "0.0%"
// for nothing; a part one decimal would round to 0.0 or 100.0 says so ("<0.1%", ">99.9%");
// "n/a" when not finite.
std::string format_share_percent(double percent);

// A count for people, with thousands separators: "82,247", "-1,024".
std::string format_count(long long count);
// A figure in a column of fixed decimals, its whole part grouped ("9,408,737.9" at 1); "n/a" when
// not finite.
std::string format_fixed(double value, int decimals);

// A figure for data files (CSV): up to 6 decimals, trailing zeros dropped; `not_finite` when
// it is not finite.
std::string format_data(double value, std::string_view not_finite = "");

// A duration a user wrote, in seconds: a non-negative number with one of the units s, m, h, d
// ("600s", "10m", "1.5h", "1d"); nullopt for anything else (no unit, another unit, spaces).
std::optional<double> parse_duration_s(std::string_view text);
// The forms parse_duration_s accepts, for messages.
inline constexpr const char* kDurationForms = "\"600s\", \"10m\", \"1.5h\" or \"1d\"";

}  // namespace topsim
