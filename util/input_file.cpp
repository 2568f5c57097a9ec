#include "util/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace topsim {

Status check_input_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Error{"cannot open '" + path + "': " + std::strerror(errno)};
  if (S_ISDIR(st.st_mode)) return Error{"cannot open '" + path + "': it is a directory"};
  if (!S_ISREG(st.st_mode)) {
    const char* what = S_ISFIFO(st.st_mode)   ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a file";
    return Error{"cannot open '" + path + "': not a regular file (" + what + ")"};
  }
  return Status::success();
}

Expected<std::ifstream> open_input_file(const std::string& path) {
  if (Status s = check_input_file(path); !s) return s.error();
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open '" + path + "': " + std::strerror(errno)};
  return in;
}

Expected<std::string> read_text_file(const std::string& path) {
  if (Status s = check_input_file(path); !s) return s.error();
  auto too_large = [&] {
    return Error{"cannot read '" + path + "': larger than " + std::to_string(kMaxWholeFileBytes >> 20) +
                 " MiB (the limit for a file read whole; docs/limits.md)"};
  };
  // Opened without blocking, then checked again: what was swapped for a FIFO or a device after
  // the check above is refused, never waited on.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return Error{"cannot open '" + path + "': " + std::strerror(errno)};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{"cannot open '" + path + "': not a regular file"};
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxWholeFileBytes) {
    ::close(fd);
    return too_large();
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::FILE* file = ::fdopen(fd, "rb");
  if (!file) {
    ::close(fd);
    return Error{"cannot open '" + path + "': " + std::strerror(errno)};
  }
  std::string text;
  char buffer[65536];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) {
    if (text.size() + n > kMaxWholeFileBytes) {
      std::fclose(file);
      return too_large();
    }
    text.append(buffer, n);
  }
  const bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) return Error{"cannot read '" + path + "': " + std::strerror(errno)};
  return text;
}

}  // namespace topsim
