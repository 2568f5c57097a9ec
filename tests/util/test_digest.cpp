// The digest that binds jobs.jsonl to its results.json: the same bytes, however cut, give the same
// value; one byte more, less or changed gives another.
#include <catch2/catch.hpp>

#include "util/digest.h"

using topsim::Digest64;
using topsim::digest64;

TEST_CASE("util::Digest64 does not depend on how the bytes are cut", "[util][digest]") {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "{\"id\":" + std::to_string(i) + "}\n";
  const uint64_t whole = digest64(text);
  for (const size_t piece : {size_t{1}, size_t{3}, size_t{7}, size_t{8}, size_t{13}, size_t{4096}}) {
    INFO(piece);
    Digest64 d;
    for (size_t at = 0; at < text.size(); at += piece) d.add(std::string_view(text).substr(at, piece));
    CHECK(d.value() == whole);
  }
  CHECK(digest64("") != digest64(std::string(1, '\0')));  // lengths differ
  CHECK(digest64(std::string(8, '\0')) != digest64(std::string(16, '\0')));
  std::string changed = text;
  changed[4321] ^= 1;
  CHECK(digest64(changed) != whole);
  CHECK(digest64(text.substr(0, text.size() - 1)) != whole);
  CHECK(topsim::hex64(0xce22d68b35e6e026ull) == "ce22d68b35e6e026");
}
