#include <catch2/catch.hpp>

#include <climits>

#include "util/number_format.h"
#include "util/suggest.h"
#include "util/text.h"
#include "util/workers.h"

using namespace topsim;

TEST_CASE("util::join puts the separator between parts only", "[util]") {
  SECTION("none, one and several parts") {
    CHECK(join(std::vector<std::string>{}, ", ").empty());
    CHECK(join(std::vector<std::string>{"a"}, ", ") == "a");
    CHECK(join(std::vector<std::string>{"a", "b", "c"}, ", ") == "a, b, c");
  }
  SECTION("an empty part keeps its place (the separator does not depend on what came before)") {
    CHECK(join(std::vector<std::string>{"", "b"}, ",") == ",b");
  }
  SECTION("any range, each item through the text function") {
    CHECK(join(std::vector<int>{0, 1, 5}, ",", [](int id) { return std::to_string(id); }) == "0,1,5");
  }
}

TEST_CASE("util::normalized_name ignores case, '-', '_' and ' '", "[util]") {
  CHECK(normalized_name("DGX-A100") == "dgxa100");
  CHECK(normalized_name("dgx_a100") == normalized_name("Dgx A100"));
  CHECK(normalized_name("") == "");
}

TEST_CASE("util::number formats: files keep 1e-6, people read a few decimals", "[util]") {
  SECTION("rounded_micro rounds half away from zero at the sixth decimal") {
    CHECK(rounded_micro(1.0000004) == 1.0);
    CHECK(rounded_micro(1.0000005) == Approx(1.000001).epsilon(1e-12));
    CHECK(rounded_micro(-2.5e-7) == Approx(-0.0).margin(1e-12));
  }
  SECTION("format_number: decimals by size, trailing zeros dropped, n/a when not finite") {
    CHECK(format_number(1472) == "1,472");
    CHECK(format_number(1472.04) == "1,472");
    CHECK(format_number(88.888) == "88.89");
    CHECK(format_number(0.95) == "0.95");
    CHECK(format_number(0.00004) == "0");
    CHECK(format_number(-0.00001) == "0");  // never "-0"
    CHECK(format_number(1.0 / 0.0) == "n/a");
  }
  SECTION("format_change_percent: one decimal, but never 0.0 for a change that is not 0") {
    CHECK(format_change_percent(3.44) == "+3.4%");
    CHECK(format_change_percent(-12) == "-12.0%");
    CHECK(format_change_percent(0) == "+0.0%");
    CHECK(format_change_percent(-0.019) == "-0.019%");  // before: "-0.0%", styled better
    CHECK(format_change_percent(0.0004) == "+0.000%");
    CHECK(format_change_percent(0.0 / 0.0) == "n/a");
  }
  SECTION("format_share_percent: one decimal, never 0.0 or 100.0 for a part that is neither") {
    CHECK(format_share_percent(87.94) == "87.9%");
    CHECK(format_share_percent(7.336) == "7.3%");
    CHECK(format_share_percent(0) == "0.0%");
    CHECK(format_share_percent(0.0261) == "<0.1%");  // the optimizer's part of a long step
    CHECK(format_share_percent(0.05) == "0.1%");
    CHECK(format_share_percent(99.97) == ">99.9%");
    CHECK(format_share_percent(100) == "100.0%");
    CHECK(format_share_percent(0.0 / 0.0) == "n/a");
  }
  SECTION("format_count and counted: thousands separated, the sign before them") {
    CHECK(format_count(0) == "0");
    CHECK(format_count(999) == "999");
    CHECK(format_count(82247) == "82,247");
    CHECK(format_count(1000000) == "1,000,000");
    CHECK(format_count(-1024) == "-1,024");
    CHECK(format_count(LLONG_MIN) == "-9,223,372,036,854,775,808");
    CHECK(counted(699744, "job") == "699,744 jobs");
    CHECK(counted(1, "node") == "1 node");
  }
  SECTION("format_number groups the whole part by thousands, the sign before it") {
    CHECK(format_number(82247) == "82,247");
    CHECK(format_number(82245.5) == "82,245.5");
    CHECK(format_number(-1234.25) == "-1,234.2");
    CHECK(format_number(12.5) == "12.5");
    CHECK(format_number(0.0 / 0.0) == "n/a");
  }
  SECTION("format_fixed: the decimals asked, the whole part grouped") {
    CHECK(format_fixed(9408737.94, 1) == "9,408,737.9");
    CHECK(format_fixed(856.25, 2) == "856.25");
    CHECK(format_fixed(-1000, 0) == "-1,000");
    CHECK(format_fixed(1.0 / 0.0, 1) == "n/a");
  }
  SECTION("format_data: six decimals, or the text given for what is not finite") {
    CHECK(format_data(0.1234567) == "0.123457");
    CHECK(format_data(2.0) == "2");
    CHECK(format_data(0.0 / 0.0, "NaN") == "NaN");
    CHECK(format_data(1e300).size() == 301);  // every digit, no exponent
  }
}

TEST_CASE("util::threads_or_all_cores: 0 means every core, never fewer than 1", "[util]") {
  CHECK(threads_or_all_cores(3) == 3);
  CHECK(threads_or_all_cores(0) >= 1);
  CHECK(threads_or_all_cores(-1) == threads_or_all_cores(0));
}

TEST_CASE("util::unknown_name lists a short list whole, the first of a long one and how many more", "[util]") {
  CHECK(unknown_name("model", "zzz", {"a", "b"}) == "unknown model 'zzz' (known: a, b)");
  CHECK(unknown_name("model", "alpah", {"alpha", "beta"}) == "unknown model 'alpah' (did you mean 'alpha'?)");
  std::vector<std::string> many;
  for (int i = 0; i < 100; ++i) many.push_back("name" + std::to_string(i));
  // name0 .. name38 joined with ", " are kListedChars (300) characters.
  const std::string line = unknown_name("metric", "zzzzzzzz", many);
  CHECK_THAT(line,
             Catch::StartsWith("unknown metric 'zzzzzzzz' (known: name0, name1, ") && Catch::EndsWith(", name38 and 61 more)"));
  CHECK(line.find("name39") == std::string::npos);
  SECTION("where the whole list is, only when it was cut") {
    CHECK_THAT(unknown_name("job", "zzzzzzzz", many, 0, "jobs.jsonl names them all"),
               Catch::EndsWith("name38 and 61 more); jobs.jsonl names them all"));
    CHECK(unknown_name("job", "zzz", {"a", "b"}, 0, "jobs.jsonl names them all") == "unknown job 'zzz' (known: a, b)");
  }
  SECTION("`count`: the list holds only the first of the candidates") {
    const std::vector<std::string> first(many.begin(), many.begin() + 50);
    CHECK_THAT(unknown_name("job", "zzzzzzzz", first, 100000), Catch::EndsWith("name38 and 99,961 more)"));
    const std::vector<std::string> few(many.begin(), many.begin() + 3);
    CHECK_THAT(unknown_name("job", "zzzzzzzz", few, 10), Catch::EndsWith("name2 and 7 more)"));
  }
  SECTION("exactly kListedChars: all of them, no tail") {
    const std::vector<std::string> exact(many.begin(), many.begin() + 39);
    CHECK_THAT(unknown_name("x", "zzzzzzzz", exact), Catch::EndsWith(", name38)"));
  }
  SECTION("a name longer than kListedChars alone is still named") {
    CHECK(unknown_name("x", "zzzzzzzz", {std::string(400, 'q'), "bbbbbbbbbbbb"}) ==
          "unknown x 'zzzzzzzz' (known: " + std::string(400, 'q') + " and 1 more)");
  }
}
