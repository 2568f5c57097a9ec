#include "cli/output_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace topsim::cli {
namespace {

Error write_error(const std::string& path, const std::string& reason) {
  return Error{"cannot write '" + path + "': " + reason};
}

}  // namespace

Status write_output(const std::string& path, const std::string& text, std::ostream& out) {
  if (path == "-") {
    out << text;
    return {};
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return write_error(path, "it is a directory");
  const std::string temporary = path + ".tmp";
  std::FILE* file = std::fopen(temporary.c_str(), "wb");
  if (!file) return write_error(path, std::strerror(errno));
  const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  const int write_errno = errno;
  const bool closed = std::fclose(file) == 0;
  if (!written || !closed) {
    const std::string reason = std::strerror(written ? errno : write_errno);
    std::filesystem::remove(temporary, ec);
    return write_error(path, reason);
  }
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    const std::string reason = ec.message();
    std::filesystem::remove(temporary, ec);
    return write_error(path, reason);
  }
  return {};
}

}  // namespace topsim::cli
