// One nesting-depth limit for every structured input topsim reads (JSON, YAML, XML): documents
// nested deeper are refused before any recursive walk could exhaust the stack.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace topsim {

// Deeper than any real input: scenarios, plans and job lists nest fewer than 10 levels, NCCL
// topology files 6-8, Kubernetes manifests about 12.
inline constexpr size_t kMaxNestingDepth = 64;

// The byte offset of the first '[' or '{' opening a level beyond `max_depth`, brackets inside
// quoted strings ignored ("..." with backslash escapes; with `single_quotes`, also YAML's '...'
// where '' is a quote); nullopt when the text stays within the limit.
std::optional<size_t> first_too_deep_bracket(std::string_view text, size_t max_depth = kMaxNestingDepth,
                                             bool single_quotes = false);

// The 0-based line of the YAML document `yaml` on which its nesting first goes beyond
// `max_depth`, counting block collections by indentation (and "- " / "? " entries that open one
// on the same line, and a sequence at its key's indentation) plus flow collections ('[', '{');
// nullopt when it stays within. It reads the text only, skipping quoted scalars, comments and
// block scalars' content, so a document too deep for a recursive-descent parser is refused before
// one runs. A level is never counted where there is none; the parsed document is checked again.
std::optional<size_t> first_too_deep_yaml_line(std::string_view yaml, size_t max_depth = kMaxNestingDepth);

}  // namespace topsim
