// Helpers of the CLI tests that open reports in a browser: finding a program, and rendering a
// report.html in headless Chromium to check that every chart was drawn without a script error.
#pragma once

#include <filesystem>
#include <regex>
#include <string>

#include <catch2/catch.hpp>

#include "tests/test_support.h"

namespace topsim::test {

// The absolute path of a program on PATH, or "".
inline std::string program(const std::string& name) {
  const CliResult r = run_shell("command -v " + name);
  std::string path = r.out.substr(0, r.out.find('\n'));
  return r.exit_code == 0 ? path : "";
}

// Renders report.html in headless Chromium; checks from the DOM after scripts ran that every
// canvas was drawn (the page marks it) and that no script error or console message occurred.
inline void check_in_browser(const std::string& chromium, const std::string& dir) {
  const std::string html = (std::filesystem::path(dir) / "report.html").string();
  const std::string profile = (std::filesystem::path(dir) / "chromium-profile").string();
  const CliResult r =
      run_shell("timeout 120 '" + chromium +
                "' --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking"
                " --disable-component-update --disable-sync --user-data-dir='" +
                profile +
                "' --enable-logging=stderr --v=0"
                " --virtual-time-budget=10000 --dump-dom 'file://" +
                html + "'");
  REQUIRE(r.exit_code == 0);
  const std::string& dom = r.out;
  const std::regex canvas("<canvas "), rendered("<canvas [^>]*data-rendered=\"yes\"");
  const auto matches = [&](const std::regex& re) {
    return static_cast<size_t>(std::distance(std::sregex_iterator(dom.begin(), dom.end(), re), std::sregex_iterator()));
  };
  const size_t canvases = matches(canvas), drawn = matches(rendered);
  INFO(html);
  CHECK(canvases > 0);
  CHECK(drawn == canvases);
  CHECK_THAT(dom, Catch::Contains("data-charts-drawn=\"" + std::to_string(canvases) + "\""));
  CHECK_THAT(dom, Catch::Contains("<pre id=\"errors\"></pre>"));
  CHECK(r.err.find("CONSOLE") == std::string::npos);  // no console message of any kind
  CHECK(dom.find("<img") == std::string::npos);
}

}  // namespace topsim::test
