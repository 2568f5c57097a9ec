#include "cli/output_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>

#include <sys/stat.h>
#include <unistd.h>
#include <csignal>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <streambuf>
#include <vector>

#include "util/digest.h"

namespace topsim::cli {
namespace {

namespace fs = std::filesystem;

Error write_error(const std::string& path, const std::string& reason) { return Error{"cannot write '" + path + "': " + reason}; }

// An output stream buffer over a file descriptor it owns; remembers the first write error and
// digests what it writes.
class FdBuffer final : public std::streambuf {
 public:
  explicit FdBuffer(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof buffer_); }
  ~FdBuffer() override { close(); }
  FdBuffer(const FdBuffer&) = delete;
  FdBuffer& operator=(const FdBuffer&) = delete;
  // Flushes and closes; the first error's text, "" when none.
  std::string close() {
    if (fd_ < 0) return error_;
    sync();
    if (::close(fd_) != 0 && error_.empty()) error_ = std::strerror(errno);
    fd_ = -1;
    return error_;
  }
  // The bytes written so far (REQUIRES: after close()).
  FileDigest written() const { return {bytes_, 0, digest_.value()}; }

 protected:
  int_type overflow(int_type c) override {
    if (sync() != 0) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) sputc(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
  }
  int sync() override {
    digest_.add(std::string_view(pbase(), static_cast<size_t>(pptr() - pbase())));
    bytes_ += static_cast<uint64_t>(pptr() - pbase());
    const char* from = pbase();
    while (from < pptr() && error_.empty()) {
      const ssize_t n = ::write(fd_, from, static_cast<size_t>(pptr() - from));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) error_ = n < 0 ? std::strerror(errno) : "short write";
      if (n > 0) from += n;
    }
    setp(buffer_, buffer_ + sizeof buffer_);
    return error_.empty() ? 0 : -1;
  }

 private:
  int fd_;
  std::string error_;
  Digest64 digest_;
  uint64_t bytes_ = 0;
  char buffer_[1 << 16];
};

// Streams `fill` into the open descriptor `fd` (closed here); the error's text, "" when none.
// `written` (when given) gets what was written.
std::string fill_descriptor(int fd, const std::function<void(std::ostream&)>& fill, FileDigest* written = nullptr) {
  FdBuffer buffer(fd);
  std::ostream stream(&buffer);
  fill(stream);
  stream.flush();
  std::string error = buffer.close();
  if (error.empty() && !stream) error = "the content could not be produced";
  if (written) *written = buffer.written();
  return error;
}

// The permissions a file created by open(..., 0666) would get under the process's umask.
mode_t default_file_mode() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

// Whether the existing `path` may be replaced by a file: absent, a regular file or a link.
Status replaceable(const std::string& path) {
  std::error_code ec;
  const fs::file_status target = fs::symlink_status(path, ec);
  if (fs::is_directory(target)) return write_error(path, "it is a directory");
  if (fs::exists(target) && !fs::is_regular_file(target) && !fs::is_symlink(target))
    return write_error(path, "it exists and is not a regular file");
  return Status::success();
}

std::string folder_of(const std::string& path) {
  std::string dir = fs::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

// Removes `path` and everything under it, never following links; errors are ignored.
void remove_tree(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}

// The staging folder a signal that ends the process (SIGTERM, SIGINT, SIGHUP) clears first: the
// files of the set, by name, then the folder (unlink and rmdir are async-signal-safe). The
// per-job records there have no name: the system frees them. SIGKILL cannot be caught: the next
// run clears what it leaves.
struct StagingCleanup {
  int dir_fd = -1;
  std::string path;
  std::vector<std::string> names;
};
StagingCleanup g_cleanup;
volatile sig_atomic_t g_cleanup_armed = 0;

extern "C" void clear_staging_and_end(int signal_number) {
  if (g_cleanup_armed) {
    g_cleanup_armed = 0;
    for (const std::string& name : g_cleanup.names) ::unlinkat(g_cleanup.dir_fd, name.c_str(), 0);
    ::rmdir(g_cleanup.path.c_str());
  }
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

void arm_cleanup(const std::string& staging, const std::vector<std::string>& names) {
  g_cleanup.dir_fd = ::open(staging.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  g_cleanup.path = staging;
  g_cleanup.names = names;
  g_cleanup_armed = 1;
  for (const int signal_number : {SIGTERM, SIGINT, SIGHUP}) ::signal(signal_number, clear_staging_and_end);
}

void disarm_cleanup() {
  g_cleanup_armed = 0;
  for (const int signal_number : {SIGTERM, SIGINT, SIGHUP}) ::signal(signal_number, SIG_DFL);
  if (g_cleanup.dir_fd >= 0) ::close(g_cleanup.dir_fd);
  g_cleanup.dir_fd = -1;
}

// Removes "<path>.tmp", the temporary file that versions before exclusive temporary files wrote
// beside `path` and left when killed: only a regular file with one link (a link made there by
// anyone else stays).
void remove_old_temporary(const std::string& path) {
  const std::string leftover = path + ".tmp";
  struct stat st {};
  if (::lstat(leftover.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1) ::unlink(leftover.c_str());
}

// A staging folder's name: this prefix, then six random characters (mkdtemp).
constexpr std::string_view kStagingPrefix = ".topsim-staging-";
const char* const kStagingTemplate = ".topsim-staging-XXXXXX";

}  // namespace

Status write_output_stream(const std::string& path, const std::function<void(std::ostream&)>& fill, std::ostream& out) {
  if (path == "-") {
    fill(out);
    return {};
  }
  if (Status s = check_output_path(path); !s) return s;
  std::string temporary = (fs::path(folder_of(path)) / ("." + fs::path(path).filename().string() + ".XXXXXX")).string();
  const int fd = ::mkostemp(temporary.data(), O_CLOEXEC);  // O_CREAT | O_EXCL, a fresh random name
  if (fd < 0) return write_error(path, std::strerror(errno));
  ::fchmod(fd, default_file_mode());
  const std::string error = fill_descriptor(fd, fill);
  if (error.empty() && ::rename(temporary.c_str(), path.c_str()) == 0) {
    remove_old_temporary(path);
    return {};
  }
  const std::string reason = error.empty() ? std::strerror(errno) : error;
  ::unlink(temporary.c_str());
  return write_error(path, reason);
}

Status check_output_path(const std::string& path) {
  if (path == "-") return {};
  if (path.empty()) return Error{"the output path is empty"};
  if (Status s = replaceable(path); !s) return s;
  const std::string dir = folder_of(path);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return write_error(path, "the folder '" + dir + "' does not exist");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return write_error(path, std::strerror(errno));
  return {};
}

Status write_output(const std::string& path, const std::string& text, std::ostream& out) {
  return write_output_stream(
      path, [&](std::ostream& stream) { stream << text; }, out);
}

Status check_append_path(const std::string& path) {
  if (path.empty()) return Error{"cannot append to '': the path is empty"};
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    return Error{"cannot append to '" + path + "': " + (S_ISDIR(st.st_mode) ? "it is a directory" : "not a regular file")};
  if (Status s = check_output_path(path); !s) return Error{"cannot append to '" + path + "': " + s.error().message};
  return {};
}

Status append_output(const std::string& path, const std::string& text) {
  if (Status s = check_append_path(path); !s) return s;
  // O_NONBLOCK: a FIFO put there since the check fails at once instead of waiting for a reader.
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const std::string reason = fd < 0 ? std::strerror(errno) : "not a regular file";
    if (fd >= 0) ::close(fd);
    return Error{"cannot append to '" + path + "': " + reason};
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  const std::string error = fill_descriptor(fd, [&](std::ostream& out) { out << text; });
  if (!error.empty()) return Error{"cannot append to '" + path + "': " + error};
  return {};
}

DirectorySink::DirectorySink(std::string dir, std::vector<std::string> set_files, std::string commit_record)
    : dir_(std::move(dir)), set_files_(std::move(set_files)), commit_record_(std::move(commit_record)) {}

DirectorySink::~DirectorySink() {
  if (!staging_.empty()) disarm_cleanup();
  if (!staging_.empty() && !committed_) remove_tree(staging_);
  if (created_dir_ && !committed_) ::rmdir(dir_.c_str());  // only when still empty
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

Status DirectorySink::prepare() {
  if (dir_.empty()) return Error{"the output folder is empty (-o '')"};
  std::error_code ec;
  created_dir_ = !fs::exists(fs::symlink_status(dir_, ec));
  fs::create_directories(dir_, ec);
  if (ec) return Error{"cannot create '" + dir_ + "': " + ec.message()};
  if (!fs::is_directory(dir_, ec)) return Error{"cannot create '" + dir_ + "': not a directory"};
  const auto cannot = [&](const std::string& reason) { return Error{"cannot write in '" + dir_ + "': " + reason}; };
  if (::access(dir_.c_str(), W_OK | X_OK) != 0) return cannot(std::strerror(errno));
  lock_fd_ = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lock_fd_ < 0) return cannot(std::strerror(errno));
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0)
    return cannot(errno == EWOULDBLOCK ? "another topsim is writing there (wait for it, or choose another -o)"
                                       : std::strerror(errno));
  for (const std::string& name : set_files_)
    if (Status s = replaceable(path(name)); !s) return s;
  if (Status s = replaceable(path(kSetRecordName)); !s) return s;
  if (Status s = check_other_sets(); !s) return s;
  remove_leftovers();
  std::string staging = (fs::path(dir_) / kStagingTemplate).string();
  if (::mkdtemp(staging.data()) == nullptr) return cannot(std::strerror(errno));
  staging_ = staging;
  std::vector<std::string> names = set_files_;
  names.emplace_back(kSetRecordName);
  arm_cleanup(staging_, names);
  return {};
}

// The folder's record names files of a set that this one does not replace: they stay beside it
// only when they are of the run this set renders (a report written beside its run's results).
// A record that cannot be read is replaced, and keeps nothing.
Status DirectorySink::check_other_sets() {
  auto previous = load_set_record(dir_);
  if (!previous || !*previous) return {};
  std::string names;
  for (const auto& [name, digest] : (*previous)->files) {
    std::error_code ec;
    if (std::find(set_files_.begin(), set_files_.end(), name) != set_files_.end() ||
        !fs::exists(fs::symlink_status(path(name), ec)))
      continue;
    kept_[name] = digest;
    names += (names.empty() ? "" : ", ") + name;
  }
  if (kept_.empty() || run_id_ == (*previous)->run) return {};
  return Error{"cannot write in '" + dir_ + "': it holds " + names + " of run " + (*previous)->run +
               ", which these files would not replace: the folder would mix two runs (choose another -o)"};
}

// What killed runs left: staging folders, and the "<file>.tmp" files that versions before the
// staging folder wrote beside each file of the set (removed only when regular, with one link:
// anything else there is not theirs).
void DirectorySink::remove_leftovers() const {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir_, ec))
    if (entry.path().filename().string().rfind(kStagingPrefix, 0) == 0) remove_tree(entry.path().string());
  for (const std::string& name : set_files_) remove_old_temporary(path(name));
}

std::string DirectorySink::path(std::string_view name) const { return (fs::path(dir_) / std::string(name)).string(); }

Status DirectorySink::write(std::string_view name, const std::function<void(std::ostream&)>& fill) {
  const std::string target = path(name);
  if (staging_.empty() || committed_) return write_error(target, "the result set is not open");
  const std::string staged = (fs::path(staging_) / std::string(name)).string();
  const int fd = ::open(staged.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) return write_error(target, std::strerror(errno));
  FileDigest written;
  if (const std::string error = fill_descriptor(fd, fill, &written); !error.empty()) return write_error(target, error);
  written_[std::string(name)] = written;
  return {};
}

Status DirectorySink::commit() {
  if (staging_.empty() || committed_) return Error{"cannot write in '" + dir_ + "': the result set is not open"};
  for (const std::string& name : set_files_)
    if (Status s = replaceable(path(name)); !s) return s;
  // Removing the records first: until they are back, the folder holds no whole set.
  for (const std::string& record : {std::string(kSetRecordName), commit_record_})
    if (::unlink(path(record).c_str()) != 0 && errno != ENOENT) return write_error(path(record), std::strerror(errno));
  for (const std::string& name : set_files_) {
    if (name == commit_record_) continue;
    const std::string target = path(name);
    if (!written_.contains(name)) {
      if (::unlink(target.c_str()) != 0 && errno != ENOENT) return write_error(target, std::strerror(errno));
      continue;
    }
    if (::rename((fs::path(staging_) / name).c_str(), target.c_str()) != 0) return write_error(target, std::strerror(errno));
  }
  if (written_.contains(commit_record_) &&
      ::rename((fs::path(staging_) / commit_record_).c_str(), path(commit_record_).c_str()) != 0)
    return write_error(path(commit_record_), std::strerror(errno));
  if (Status s = write_set_record(); !s) return s;
  committed_ = true;
  remove_tree(staging_);
  return {};
}

// The set's record, written in the staging folder and moved in. A set that named no run gets the
// digest of its files as its identity.
Status DirectorySink::write_set_record() {
  SetRecord record{run_id_, kept_};
  for (const auto& [name, digest] : written_) record.files[name] = digest;
  if (record.run.empty()) {
    std::string files;
    for (const auto& [name, digest] : record.files) files += name + " " + hex64(digest.digest) + "\n";
    record.run = hex64(digest64(files));
  }
  const std::string staged = (fs::path(staging_) / std::string(kSetRecordName)).string();
  const int fd = ::open(staged.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  const std::string target = path(kSetRecordName);
  if (fd < 0) return write_error(target, std::strerror(errno));
  if (const std::string error = fill_descriptor(fd, [&](std::ostream& out) { out << render_set_record(record); }); !error.empty())
    return write_error(target, error);
  if (::rename(staged.c_str(), target.c_str()) != 0) return write_error(target, std::strerror(errno));
  return {};
}

}  // namespace topsim::cli
