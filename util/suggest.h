// "Did you mean ...?" suggestions for names typed by a user: JSON keys, GPU models, CPU kinds,
// built-in node models and CLI commands.
//
// A candidate is close when the typed name, compared case-insensitively and ignoring '-', '_'
// and spaces, is within a few edits of it (optimal string alignment: a swap of two neighbours
// counts as one edit) or of its beginning ("dgx-1" -> "dgx1-v100"), or is part of it
// ("skylake" -> "intel-skylake").
#pragma once

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

// "unknown <what> '<typed>' (did you mean 'x'?)" when a close candidate exists, else
// "unknown <what> '<typed>' (known: a, b, c)".
std::string unknown_name(std::string_view what, std::string_view typed, const std::vector<std::string>& known);

// Candidates joined with ", ".
std::string join_names(const std::vector<std::string>& names);

}  // namespace topsim
