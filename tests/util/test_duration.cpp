// Durations users write (SLOs): a number with s, m, h or d, nothing else.
#include <catch2/catch.hpp>

#include "util/number_format.h"

using topsim::parse_duration_s;

TEST_CASE("util::parse_duration_s reads s, m, h and d, and refuses the rest", "[util]") {
  CHECK(parse_duration_s("600s") == 600.0);
  CHECK(parse_duration_s("10m") == 600.0);
  CHECK(parse_duration_s("1.5h") == 5400.0);
  CHECK(parse_duration_s("1d") == 86400.0);
  for (const char* bad : {"", "m", "10", "10 m", "10min", "-5m", "1e999h", "nanm", "10M"}) {
    INFO(bad);
    CHECK_FALSE(parse_duration_s(bad).has_value());
  }
}
