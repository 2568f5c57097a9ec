#include "cli/output_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace topsim::cli {
namespace {

namespace fs = std::filesystem;

Error write_error(const std::string& path, const std::string& reason) { return Error{"cannot write '" + path + "': " + reason}; }

}  // namespace

Status write_output_stream(const std::string& path, const std::function<void(std::ostream&)>& fill, std::ostream& out) {
  if (path == "-") {
    fill(out);
    return {};
  }
  // Only regular files are replaced: renaming over a device, a FIFO or a folder is refused.
  if (Status s = check_output_path(path); !s) return s;
  std::error_code ec;
  const std::string temporary = path + ".tmp";
  const fs::file_status leftover = fs::symlink_status(temporary, ec);
  if (fs::exists(leftover) && !fs::is_regular_file(leftover))
    return write_error(path, "'" + temporary + "' exists and is not a regular file");
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (!file) return write_error(path, std::strerror(errno));
    fill(file);
    file.flush();
    if (!file) {
      const std::string reason = std::strerror(errno);
      file.close();
      fs::remove(temporary, ec);
      return write_error(path, reason);
    }
  }
  fs::rename(temporary, path, ec);
  if (ec) {
    const std::string reason = ec.message();
    fs::remove(temporary, ec);
    return write_error(path, reason);
  }
  return {};
}

Status check_output_path(const std::string& path) {
  if (path == "-") return {};
  std::error_code ec;
  const fs::file_status target = fs::symlink_status(path, ec);
  if (fs::is_directory(target)) return write_error(path, "it is a directory");
  if (fs::exists(target) && !fs::is_regular_file(target) && !fs::is_symlink(target))
    return write_error(path, "it exists and is not a regular file");
  std::string dir = fs::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec)) return write_error(path, "the folder '" + dir + "' does not exist");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return write_error(path, std::strerror(errno));
  return {};
}

Status write_output(const std::string& path, const std::string& text, std::ostream& out) {
  return write_output_stream(
      path, [&](std::ostream& stream) { stream << text; }, out);
}

Status DirectorySink::prepare() const {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return Error{"cannot create '" + dir_ + "': " + ec.message()};
  if (!fs::is_directory(dir_, ec)) return Error{"cannot create '" + dir_ + "': not a directory"};
  if (::access(dir_.c_str(), W_OK | X_OK) != 0) return Error{"cannot write in '" + dir_ + "': " + std::strerror(errno)};
  return {};
}

std::string DirectorySink::path(std::string_view name) const { return (fs::path(dir_) / std::string(name)).string(); }

void DirectorySink::remove_stale(std::string_view name) const {
  std::error_code ec;
  if (fs::is_regular_file(path(name), ec)) fs::remove(path(name), ec);
}

Status DirectorySink::write(std::string_view name, const std::function<void(std::ostream&)>& fill) {
  std::ostringstream unused;
  return write_output_stream(path(name), fill, unused);
}

}  // namespace topsim::cli
