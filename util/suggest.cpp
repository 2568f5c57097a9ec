#include "util/suggest.h"
#include "util/number_format.h"
#include "util/text.h"

#include <algorithm>
#include <cctype>

namespace topsim {
namespace {

// Optimal string alignment distance (Levenshtein plus transposition of neighbours).
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1, 0));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

// Edits from `typed` to `candidate`, or to its beginning plus one (a truncated name is a
// likely typo too, but a full match is better); 1 when the candidate contains `typed`
// ("skylake" -> "intel-skylake").
size_t closeness(const std::string& typed, const std::string& candidate) {
  size_t best = edit_distance(typed, candidate);
  if (typed.size() >= 3 && candidate.find(typed) != std::string::npos) best = std::min<size_t>(best, 1);
  if (typed.size() >= 2 && typed.size() < candidate.size())
    best = std::min(best, edit_distance(typed, candidate.substr(0, typed.size())) + 1);
  return best;
}

}  // namespace

std::optional<std::string> closest_name(std::string_view typed, const std::vector<std::string>& candidates) {
  const std::string key = normalized_name(typed);
  const size_t limit = std::max<size_t>(2, key.size() / 3);
  std::optional<std::string> best;
  size_t best_score = limit + 1;
  for (const std::string& candidate : candidates) {
    const std::string name = normalized_name(candidate);
    // Every rule is at least the length difference when `typed` is the longer: a name typed far
    // longer than the candidate cannot be close (and a long one would cost length x length).
    if (key.size() > name.size() + limit) continue;
    const size_t score = closeness(key, name);
    if (score < best_score) {
      best_score = score;
      best = candidate;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates) {
  const auto best = closest_name(typed, candidates);
  return best ? "; did you mean '" + *best + "'?" : "";
}

std::string join_names(const std::vector<std::string>& names) { return join(names, ", "); }

std::string unknown_name(std::string_view what, std::string_view typed, const std::vector<std::string>& known, size_t count,
                         std::string_view whole_list) {
  const std::string start = "unknown " + std::string(what) + " '" + std::string(typed) + "' (";
  if (const auto close = closest_name(typed, known)) return start + "did you mean '" + *close + "'?)";
  std::string listed;
  size_t shown = 0;
  for (; shown < known.size(); ++shown) {
    const size_t length = listed.size() + (shown > 0 ? 2 : 0) + known[shown].size();
    if (shown > 0 && length > kListedChars) break;
    listed += (shown > 0 ? ", " : "") + known[shown];
  }
  count = std::max(count, known.size());
  if (shown == count) return start + "known: " + listed + ")";
  return start + "known: " + listed + " and " + format_number(static_cast<double>(count - shown)) + " more)" +
         (whole_list.empty() ? "" : "; " + std::string(whole_list));
}

}  // namespace topsim
