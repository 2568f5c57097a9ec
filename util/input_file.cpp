#include "util/input_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

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

}  // namespace topsim
