#include "util/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "util/digest.h"

namespace topsim {
namespace {

thread_local InputRecorder* t_recorder = nullptr;

// The digest of the regular file at `path`, for the recorder; 0 when it cannot be read (the
// reader reports that).
uint64_t digest_of_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  Digest64 digest;
  std::string buffer(size_t{1} << 20, '\0');
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0)
    digest.add(std::string_view(buffer.data(), static_cast<size_t>(in.gcount())));
  return digest.value();
}

}  // namespace

InputRecorder::InputRecorder() : outer_(t_recorder) { t_recorder = this; }

InputRecorder::~InputRecorder() { t_recorder = outer_; }

uint64_t InputRecorder::digest() const {
  std::vector<uint64_t> sorted = files_;
  std::sort(sorted.begin(), sorted.end());
  Digest64 digest;
  for (const uint64_t file : sorted) digest.add(hex64(file));
  return digest.value();
}

void InputRecorder::record(uint64_t file_digest) {
  for (InputRecorder* r = t_recorder; r != nullptr; r = r->outer_) r->files_.push_back(file_digest);
}

bool InputRecorder::active() { return t_recorder != nullptr; }

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
  if (InputRecorder::active()) InputRecorder::record(digest_of_file(path));
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
  if (InputRecorder::active()) InputRecorder::record(digest64(text));
  return text;
}

}  // namespace topsim
