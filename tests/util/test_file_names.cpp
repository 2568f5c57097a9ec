// Names from inputs that become folder names stay one plain component.
#include <catch2/catch.hpp>

#include "util/file_names.h"

using namespace topsim;

TEST_CASE("util::file names from inputs are one plain component", "[util][names]") {
  CHECK(safe_file_name("philly-552-nodes") == "philly-552-nodes");
  CHECK(safe_file_name("../../etc/passwd") == "_.._etc_passwd");
  CHECK(safe_file_name("/abs/path") == "_abs_path");
  CHECK(safe_file_name("..") == "unnamed");
  CHECK(safe_file_name(".hidden") == "hidden");
  CHECK(safe_file_name("--help") == "help");
  CHECK(safe_file_name("a\\b\nc") == "a_b_c");
  CHECK(safe_file_name("") == "unnamed");
  CHECK(safe_file_name(std::string(300, 'x')).size() == kMaxFileNameBytes);
  const std::string euros(60, 'x');
  const std::string cut = safe_file_name(euros + std::string(20, ' ') +
                                         "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac");
  CHECK(cut.size() <= kMaxFileNameBytes);
  CHECK((static_cast<unsigned char>(cut.back()) & 0xc0) != 0xc0);  // not cut inside a UTF-8 sequence
}
