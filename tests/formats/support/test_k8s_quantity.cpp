// Kubernetes quantities (formats/support/k8s_quantity.h) in the units Kueue counts.
#include <catch2/catch.hpp>

#include "formats/support/k8s_quantity.h"

using namespace topsim;

namespace {

int64_t units(const char* text, int scale = 0) {
  auto value = parse_quantity(text, scale);
  INFO(text << ": " << (value ? "" : value.error().message));
  REQUIRE(value.ok());
  return *value;
}

}  // namespace

TEST_CASE("formats::k8s_quantity: the suffix families and exponents", "[formats][quantity]") {
  SECTION("plain, decimal SI and binary SI") {
    CHECK(units("8") == 8);
    CHECK(units("500m", 3) == 500);
    CHECK(units("2", 3) == 2000);
    CHECK(units("1.5", 3) == 1500);
    CHECK(units("1.5Gi") == 1610612736);
    CHECK(units("1Ki") == 1024);
    CHECK(units("1k") == 1000);
    CHECK(units("64G") == 64000000000);
    CHECK(units("8Ti") == int64_t{8} << 40);
    CHECK(units("2M") == 2000000);  // M is mega, never milli
    CHECK(units("1E") == 1000000000000000000);
    CHECK(units(".5", 3) == 500);
    CHECK(units("5.", 0) == 5);
    CHECK(units("+3") == 3);
    CHECK(units("100") == 100);
    CHECK(units("0") == 0);
  }
  SECTION("decimal exponents: e and E followed by a signed integer") {
    CHECK(units("1e3") == 1000);
    CHECK(units("1E3") == 1000);
    CHECK(units("5e-3", 3) == 5);
    CHECK(units("1e+2") == 100);
  }
  SECTION("what is finer than the unit is rounded up, as Value() and MilliValue() do") {
    CHECK(units("0.1m", 3) == 1);
    CHECK(units("0.5") == 1);
    CHECK(units("1.0001") == 2);
    CHECK(units("1u", 3) == 1);
    CHECK(units("1n") == 1);
    CHECK(units("0.30000000000000004", 3) == 301);
  }
  SECTION("negative values come back negative (the callers refuse them)") { CHECK(units("-4") == -4); }
}

TEST_CASE("formats::k8s_quantity: malformed and oversized quantities are refused", "[formats][quantity]") {
  for (const char* bad : {"", "abc", "1K", "1ki", "1 Gi", "1e", "1.2.3", "Gi", ".", "1.5x", "0x10", "1e3m", "--1", "1Gi5"}) {
    INFO("'" << bad << "'");
    const auto r = parse_quantity(bad);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("is not a Kubernetes quantity"));
  }
  SECTION("beyond int64 in the unit asked for") {
    CHECK_THAT(parse_quantity("10E").error().message, Catch::Contains("too large"));
    CHECK_THAT(parse_quantity("9223372036854775807", 3).error().message, Catch::Contains("too large"));
    CHECK(parse_quantity("9223372036854775807").ok());
    CHECK_THAT(parse_quantity("1.2345678901234567891").error().message, Catch::Contains("19 significant digits"));
    CHECK_THAT(parse_quantity("12345678901234567890").error().message, Catch::Contains("too large"));  // 19 digits, then a zero
    CHECK(units("1000000000000000000000m") == 1000000000000000000);  // trailing zeros are no significant digits
  }
  SECTION("a number for weights") {
    CHECK(*parse_quantity_number("500m") == Approx(0.5));
    CHECK(*parse_quantity_number("2") == 2.0);
    CHECK(*parse_quantity_number("1Ki") == 1024.0);
    CHECK_FALSE(parse_quantity_number("x").ok());
  }
  SECTION("Kueue's units: thousandths for cpu only") {
    CHECK(kueue_scale("cpu") == 3);
    CHECK(kueue_scale("memory") == 0);
    CHECK(kueue_scale("nvidia.com/gpu") == 0);
  }
}
