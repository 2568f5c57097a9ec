// Where a YAML stream's documents lie: the split the readers load documents by and the YAML fuzz
// mutator picks one from.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include "util/yaml_stream.h"

using topsim::yaml_document_spans;

namespace {
std::string text_of(std::string_view text, const topsim::YamlDocumentSpan& span) {
  return std::string(text.substr(span.begin, span.end - span.begin));
}
}  // namespace

TEST_CASE("util::yaml_document_spans splits at separator lines", "[util][yaml]") {
  const std::string text = "a: 1\n---\nb: 2\nc: 3\n--- # note\nd: 4";
  const auto documents = yaml_document_spans(text);
  REQUIRE(documents.size() == 3);
  CHECK(text_of(text, documents[0]) == "a: 1\n");
  CHECK(documents[0].first_line == 1);
  CHECK(text_of(text, documents[1]) == "b: 2\nc: 3\n");
  CHECK(documents[1].first_line == 3);
  CHECK(text_of(text, documents[2]) == "d: 4");  // the last line keeps no newline it did not have
  CHECK(documents[2].first_line == 6);
  SECTION("only '---' alone, or followed by a space or a carriage return, separates") {
    const std::string windows = "a: 1\r\n---\r\nb: 2\r\n----\nc: ---\n---x\n";
    const auto parts = yaml_document_spans(windows);
    REQUIRE(parts.size() == 2);
    CHECK(text_of(windows, parts[1]) == "b: 2\r\n----\nc: ---\n---x\n");
  }
  SECTION("a leading separator leaves an empty first document; an empty text is one document") {
    const auto leading = yaml_document_spans("---\nx: 1\n");
    REQUIRE(leading.size() == 2);
    CHECK(leading[0].begin == leading[0].end);
    CHECK(leading[1].first_line == 2);
    const auto empty = yaml_document_spans("");
    REQUIRE(empty.size() == 1);
    CHECK(empty[0].begin == 0);
    CHECK(empty[0].end == 0);
  }
  SECTION("from a byte on: the bytes before it belong to no document, lines count from it") {
    const std::string prefixed = "\x03k: v\n---\nm: n\n";
    const auto parts = yaml_document_spans(prefixed, 1);
    REQUIRE(parts.size() == 2);
    CHECK(text_of(prefixed, parts[0]) == "k: v\n");
    CHECK(parts[0].begin == 1);
    CHECK(parts[1].first_line == 3);
    CHECK(text_of(prefixed, parts[1]) == "m: n\n");
  }
}
