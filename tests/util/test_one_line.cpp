// Messages quote inputs: control bytes and invalid UTF-8 are escaped so a message stays one line.
#include <catch2/catch.hpp>

#include "util/expected.h"
#include "util/one_line.h"

using topsim::one_line;

TEST_CASE("util::one_line escapes control bytes and invalid UTF-8", "[util][messages]") {
  CHECK(one_line("dgx-a100") == "dgx-a100");
  CHECK(one_line("a\nb\rc\td") == "a\\nb\\rc\\td");
  CHECK(one_line(std::string("nul\0here", 8)) == "nul\\x00here");
  CHECK(one_line("bell\x07 del\x7f esc\x1b[31m") == "bell\\x07 del\\x7f esc\\x1b[31m");
  CHECK(one_line("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80") == "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80");  // é € 🚀 kept
  CHECK(one_line("\xff\xfe") == "\\xff\\xfe");
  CHECK(one_line("\xc3") == "\\xc3");                             // truncated sequence
  CHECK(one_line("\xc0\xaf") == "\\xc0\\xaf");                    // overlong '/'
  CHECK(one_line("\xed\xa0\x80") == "\\xed\\xa0\\x80");           // a UTF-16 surrogate
  CHECK(one_line("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");  // beyond U+10FFFF
  CHECK(one_line("back\\slash") == "back\\slash");
}

TEST_CASE("util::Error holds one line whatever it quotes", "[util][messages]") {
  const topsim::Error error{"unknown node model 'dgx\r\n-a100'"};
  CHECK(error.message == "unknown node model 'dgx\\r\\n-a100'");
}
