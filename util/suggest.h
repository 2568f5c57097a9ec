// "Did you mean ...?" suggestions for names typed by a user: JSON keys, GPU models, CPU kinds,
// built-in node models and CLI commands.
//
// A candidate is close when the typed name, compared case-insensitively and ignoring '-', '_'
// and spaces, is within a few edits of it (optimal string alignment: a swap of two neighbours
// counts as one edit) or of its beginning ("dgx-1" -> "dgx1-v100"), or is part of it
// ("skylake" -> "intel-skylake").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace topsim {

// The closest candidate to `typed`, or nullopt when none is close enough to be a likely typo.
// Ties go to the earlier candidate.
std::optional<std::string> closest_name(std::string_view typed, const std::vector<std::string>& candidates);

// "; did you mean 'x'?" when a close candidate exists, else "".
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates);

// The most characters of candidates unknown_name lists: a catalog (GPU models, schedulers) is
// listed whole; a longer list (every metric of every scheduler of a suite, a run's jobs) would be
// one unreadable line.
inline constexpr size_t kListedChars = 300;

// "unknown <what> '<typed>' (did you mean 'x'?)" when a close candidate exists, else
// "unknown <what> '<typed>' (known: a, b, c)", of a list longer than kListedChars the first that
// fit and how many more: "(known: a, ..., p and 224 more)", followed by "; <whole_list>" (where
// they all are) when given. `count`: the candidates in all when `known` holds only the first of
// them (0: known.size()).
std::string unknown_name(std::string_view what, std::string_view typed, const std::vector<std::string>& known, size_t count = 0,
                         std::string_view whole_list = "");

// Candidates joined with ", ".
std::string join_names(const std::vector<std::string>& names);

}  // namespace topsim
