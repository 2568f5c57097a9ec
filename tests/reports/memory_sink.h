// An OutputSink that keeps the files a reporter writes, by name, for tests.
#pragma once

#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <string_view>

#include "reports/reporter.h"

struct MemorySink final : topsim::OutputSink {
  std::map<std::string, std::string> files;
  topsim::Status write(std::string_view name, const std::function<void(std::ostream&)>& fill) override {
    std::ostringstream out;
    fill(out);
    files[std::string(name)] = out.str();
    return topsim::Status::success();
  }
};
