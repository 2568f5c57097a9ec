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

TEST_CASE("util::quoted_value caps what a message quotes at 80 characters", "[util][messages]") {
  using topsim::quoted_value;
  CHECK(quoted_value("short") == "short");
  CHECK(quoted_value(std::string(80, 'k')) == std::string(80, 'k'));
  CHECK(quoted_value(std::string(100000, 'k')) == std::string(80, 'k') + "\xe2\x80\xa6");
  // Characters, not bytes: a cut never splits a UTF-8 sequence, and escapes stay whole.
  std::string euros;
  for (int i = 0; i < 90; ++i) euros += "\xe2\x82\xac";
  CHECK(quoted_value(euros) == euros.substr(0, 240) + "\xe2\x80\xa6");
  CHECK(quoted_value(std::string(79, 'a') + "\x1b[31m") == std::string(79, 'a') + "\\x1b\xe2\x80\xa6");
  CHECK(topsim::quoted_pointer("/workload/" + std::string(5000, 'z') + "/x") ==
        "/workload/" + std::string(80, 'z') + "\xe2\x80\xa6/x");
  // Keys as written: a metric key "topology-aware/wait_s.p95" is not shown "topology-aware~1wait_s.p95".
  CHECK(topsim::quoted_pointer("/scenarios/0/metrics/topology-aware~1wait_s.p95") ==
        "/scenarios/0/metrics/topology-aware/wait_s.p95");
  CHECK(topsim::quoted_pointer("/a~0b/~01") == "/a~b/~1");
}

TEST_CASE("util::cap_quoted keeps paths whole and cuts what no path is", "[util][messages]") {
  using topsim::cap_quoted;
  const std::string path = "/tmp/" + std::string(300, 'p') + "/results.json";
  CHECK(cap_quoted("cannot write '" + path + "': it is a directory") == "cannot write '" + path + "': it is a directory");
  CHECK(cap_quoted("bad value '" + std::string(10000, 'v') + "' here") ==
        "bad value '" + std::string(80, 'v') + "\xe2\x80\xa6' here");
  CHECK(cap_quoted("version " + std::string(10000, '9') + " is not supported") ==
        "version " + std::string(80, '9') + "\xe2\x80\xa6 is not supported");
  CHECK(cap_quoted("don't cut 'this'") == "don't cut 'this'");
  const std::string words = [] {
    std::string w;
    for (int i = 0; i < 10000; ++i) w += "word ";
    return w;
  }();
  CHECK(cap_quoted(words).size() < topsim::kMaxMessageChars + 10);
}
