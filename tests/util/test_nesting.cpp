// One nesting limit for every structured input: the bracket scan that JSON readers run first.
#include <catch2/catch.hpp>

#include "util/nesting.h"

using topsim::first_too_deep_bracket;
using topsim::kMaxNestingDepth;

TEST_CASE("util::first_too_deep_bracket finds the first level past the limit", "[util][nesting]") {
  const std::string at_limit = std::string(kMaxNestingDepth, '[') + std::string(kMaxNestingDepth, ']');
  CHECK_FALSE(first_too_deep_bracket(at_limit));
  const std::string past = "[" + at_limit + "]";
  REQUIRE(first_too_deep_bracket(past));
  CHECK(*first_too_deep_bracket(past) == kMaxNestingDepth);  // the 65th '[' is at offset 64
  CHECK(first_too_deep_bracket(std::string(1000000, '{')));
  SECTION("brackets in strings do not count, escaped quotes included") {
    CHECK_FALSE(first_too_deep_bracket("[\"" + std::string(100, '[') + "\\\"" + std::string(100, '{') + "\"]"));
    CHECK_FALSE(first_too_deep_bracket("['" + std::string(100, '[') + "']", kMaxNestingDepth, true));
    CHECK(first_too_deep_bracket("['" + std::string(100, '[') + "']"));  // JSON has no '...' strings
  }
  SECTION("closing brackets lower the depth, stray ones do not go below 0") {
    std::string flat;
    for (int i = 0; i < 1000; ++i) flat += "[[]]";
    CHECK_FALSE(first_too_deep_bracket(flat));
    CHECK_FALSE(first_too_deep_bracket(std::string(100, ']') + "[]"));
  }
}

namespace {

// `levels` block mappings, each indented two spaces more than its parent.
std::string block_mappings(size_t levels) {
  std::string text;
  for (size_t i = 0; i < levels; ++i) text += std::string(2 * i, ' ') + "k" + std::to_string(i) + ":\n";
  return text + std::string(2 * levels, ' ') + "leaf: 1\n";
}

}  // namespace

TEST_CASE("util::first_too_deep_yaml_line counts block and flow levels before any parser runs", "[util][nesting]") {
  using topsim::first_too_deep_yaml_line;
  SECTION("block mappings by indentation: the line of the first level past the limit") {
    CHECK_FALSE(first_too_deep_yaml_line(block_mappings(kMaxNestingDepth - 1)));
    REQUIRE(first_too_deep_yaml_line(block_mappings(kMaxNestingDepth + 1)));
    CHECK(*first_too_deep_yaml_line(block_mappings(kMaxNestingDepth + 1)) == kMaxNestingDepth);
    CHECK(first_too_deep_yaml_line(block_mappings(5000)));
  }
  SECTION("compact sequences on one line, and sequences at their key's indentation") {
    CHECK_FALSE(first_too_deep_yaml_line(std::string(200000, '-') + "\n"));  // a plain scalar
    std::string compact;
    for (int i = 0; i < 100; ++i) compact += "- ";
    CHECK(first_too_deep_yaml_line(compact + "x\n") == 0u);
    std::string same_column;  // a:\n- b:\n  - c: ... : a mapping and a sequence per step
    for (int i = 0; i < 40; ++i) same_column += std::string(2 * i, ' ') + "k:\n" + std::string(2 * i, ' ') + "- x: 1\n";
    CHECK(first_too_deep_yaml_line(same_column));
  }
  SECTION("flow collections, across lines and inside block ones") {
    CHECK(first_too_deep_yaml_line("a: " + std::string(100, '[') + std::string(100, ']') + "\n") == 0u);
    CHECK(first_too_deep_yaml_line("a:\n" + std::string(50, '{') + "\n" + std::string(50, '[') + "\n") == 2u);
  }
  SECTION("quoted scalars, comments, plain scalars and block scalars hold no levels") {
    const std::string brackets(200, '[');
    CHECK_FALSE(first_too_deep_yaml_line("a: \"" + brackets + "\"\nb: '" + brackets + "'\n"));
    CHECK_FALSE(first_too_deep_yaml_line("a: 1  # " + brackets + "\n# " + brackets + "\n"));
    CHECK_FALSE(first_too_deep_yaml_line("a: it's x" + brackets + "\nb: don't\n"));
    std::string script = "run: |\n";
    for (int i = 0; i < 100; ++i) script += std::string(2 + i, ' ') + "- " + brackets + "\n";
    CHECK_FALSE(first_too_deep_yaml_line(script + "next: 1\n"));
  }
  SECTION("a Kubernetes manifest is a few levels deep") {
    const std::string pod =
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: {app: x, tier: [a, b]}\nspec:\n  containers:\n"
        "  - name: c\n    args: [\"--x\", '--y']\n    resources:\n      limits:\n        nvidia.com/gpu: 1\n";
    CHECK_FALSE(first_too_deep_yaml_line(pod, 8));
    CHECK(first_too_deep_yaml_line(pod, 4));
  }
}
