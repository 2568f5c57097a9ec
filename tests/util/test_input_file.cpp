// Inputs are regular files: a FIFO, a device or a folder named as an input is refused at once
// (reading one could block forever or never end), and a file read whole has a size limit.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "formats/hardware/node_source.h"
#include "formats/traces/philly_trace.h"
#include "scenario/scenario_loader.h"
#include "tests/test_support.h"
#include "util/input_file.h"

using namespace topsim;

TEST_CASE("util::input files: only regular files are read", "[util][input]") {
  test::TempDir dir;
  const std::string fifo = dir.file("pipe.json");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  SECTION("a FIFO: refused before it is opened (opening one blocks)") {
    const auto text = read_text_file(fifo);
    REQUIRE_FALSE(text.ok());
    CHECK(text.error().message == "cannot open '" + fifo + "': not a regular file (a FIFO)");
    const auto scenario = load_scenario(fifo);
    REQUIRE_FALSE(scenario.ok());
    CHECK_THAT(scenario.error().message, Catch::Contains("not a regular file (a FIFO)"));
    const auto philly = load_philly(fifo);
    REQUIRE_FALSE(philly.ok());
    CHECK_THAT(philly.error().message, Catch::Contains("not a regular file (a FIFO)"));
  }
  SECTION("an endless device") {
    const auto text = read_text_file("/dev/zero");
    REQUIRE_FALSE(text.ok());
    CHECK(text.error().message == "cannot open '/dev/zero': not a regular file (a character device)");
    CHECK_FALSE(load_philly("/dev/zero").ok());
  }
  SECTION("a folder, and nothing at all") {
    CHECK(read_text_file(dir.path.string()).error().message == "cannot open '" + dir.path.string() + "': it is a directory");
    CHECK(read_text_file(dir.file("absent.json")).error().message ==
          "cannot open '" + dir.file("absent.json") + "': No such file or directory");
  }
  SECTION("a file read whole is at most 256 MiB") {
    const std::string big = dir.file("big.json");
    std::ofstream(big).close();
    std::filesystem::resize_file(big, kMaxWholeFileBytes + 1);  // sparse: no disk used
    const auto text = read_text_file(big);
    REQUIRE_FALSE(text.ok());
    CHECK_THAT(text.error().message, Catch::Contains("larger than 256 MiB"));
  }
}
