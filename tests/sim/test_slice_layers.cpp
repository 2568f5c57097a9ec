// The reader of Kueue's multi-layer slice annotation (sim/schedulers/slice_layers.h).
#include <catch2/catch.hpp>

#include "sim/schedulers/slice_layers.h"

using namespace topsim;

TEST_CASE("sim::slice_layers reads the layers as written, outermost first", "[sim]") {
  const auto layers = parse_slice_constraints(
      "[\n  {\"topology\": \"cloud.provider.com/topology-block\", \"size\": 32},\n"
      "  {\"size\": 16, \"topology\": \"cloud.provider.com/topology-rack\"}\n]\n");
  REQUIRE(layers);
  REQUIRE(layers->size() == 2);
  CHECK((*layers)[0].topology == "cloud.provider.com/topology-block");
  CHECK((*layers)[0].size == 32);
  CHECK((*layers)[1].topology == "cloud.provider.com/topology-rack");
  CHECK((*layers)[1].size == 16);
  const auto none = parse_slice_constraints(" [ ] ");
  REQUIRE(none);
  CHECK(none->empty());
  const auto negative = parse_slice_constraints(R"([{"topology": "rack", "size": -2}])");
  REQUIRE(negative);  // a number, refused by the plug-in's rule on sizes
  CHECK(negative->front().size == -2);
}

TEST_CASE("sim::slice_layers names what is not the annotation's JSON and where", "[sim]") {
  const std::string prefix = "not a JSON array of {\"topology\": <level>, \"size\": <pods>}: ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "'[' expected where the text ends"},
      {"rack", "'r' where '[' was expected at character 1"},
      {R"({"topology": "rack", "size": 2})", "'{' where '[' was expected at character 1"},
      {R"([{"topology": "rack", "size": 2})", "',' or ']' expected where the text ends"},
      {R"([{"topology": "rack", "size": 2}] x)", "nothing after the array at character 35"},
      {R"([{"topology": "rack", "size": 2.0}])", "a size that is not a whole number of pods at character 31"},
      {R"([{"topology": "rack", "size": 1e1}])", "a size that is not a whole number of pods at character 31"},
      {R"([{"topology": "rack", "size": 02}])", "a size that is not a whole number of pods at character 31"},
      {R"([{"topology": "rack", "size": "2"}])", "a size that is not a whole number of pods at character 31"},
      {R"([{"topology": "rack", "size": 99999999999}])", "a size out of range at character 31"},
      {R"([{"topology": "rack", "size": 3000000000}])", "a size out of range at character 31"},
      {R"([{"topology": "rack"}])", "an entry without \"size\" at character 2"},
      {R"([{}])", "an entry without \"topology\" at character 2"},
      {R"([{"topology": "rack", "size": 2, "count": 1}])",
       "member \"count\" (only \"topology\" and \"size\" are read) at character 34"},
      {R"([{"topology": "rack", "topology": "block", "size": 2}])", "\"topology\" given twice at character 23"},
      {R"([{"topology": "ra\"ck", "size": 2}])", "a character a label name does not have at character 18"},
      {R"([{"topology": "rack, "size": 2}])", "'s' where ',' or '}' was expected at character 23"},
      {R"([{"topology": 7, "size": 2}])", "'7' where a string was expected at character 15"},
      {R"([{"topology": "rack)", "an unterminated string at character 15"},
      {R"([{"topology": "rack", "size": 2},])", "']' where '{' was expected at character 34"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    const auto layers = parse_slice_constraints(text);
    REQUIRE_FALSE(layers);
    CHECK(layers.error().message == prefix + message);
  }
}
