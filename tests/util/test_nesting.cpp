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
