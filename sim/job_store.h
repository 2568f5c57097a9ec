// The final records of one run's jobs, kept on disk while the run proceeds and read back by job
// id, so that a run writing every job's record (`topsim run`'s jobs.jsonl, jobs.csv and the
// report's per-job charts) holds in memory only its open jobs and one buffer, not a record per
// job of the workload.
//
// Records arrive in the order they become final (not by id). They are encoded compactly
// (integers and doubles as their bytes: read back exactly) into a buffer; a full buffer is sorted
// by id and appended to the file as one sorted chunk. Reading merges the chunks by id. Jobs
// close roughly in id order, so chunks overlap little and the merge is cheap.
//
// The file is created in a given folder and unlinked at once: it has no name, and the system
// frees it when the store is destroyed or the process ends, however it ends.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/job_record.h"
#include "util/expected.h"

namespace topsim {

class JobStore {
 public:
  static constexpr size_t kDefaultBufferBytes = size_t{8} << 20;  // encoded records between two chunks; default 8 MiB

  // A store spilling into an unnamed file in `dir`. Error: "cannot keep the per-job records in
  // '<dir>': <reason>".
  [[nodiscard]] static Expected<std::unique_ptr<JobStore>> create(const std::string& dir,
                                                                  size_t buffer_bytes = kDefaultBufferBytes);
  ~JobStore();
  JobStore(const JobStore&) = delete;
  JobStore& operator=(const JobStore&) = delete;

  // Adds job `id`'s final record. REQUIRES: `id` not added before; finish() not called.
  void add(uint32_t id, const JobRecord& record);
  // No more records: writes the last chunk. Error: the first write that failed (disk full, ...),
  // "cannot keep the per-job records in '<dir>': <reason>".
  [[nodiscard]] Status finish();
  // Calls `each(id, record)` for every record added, by ascending id. REQUIRES: finish() succeeded.
  // Error: the file could not be read back.
  [[nodiscard]] Status for_each(const std::function<void(uint32_t id, const JobRecord& record)>& each) const;
  size_t size() const { return count_; }

 private:
  struct Chunk {
    uint64_t offset = 0, bytes = 0;
  };
  JobStore(int fd, std::string dir, size_t buffer_bytes) : fd_(fd), dir_(std::move(dir)), buffer_bytes_(buffer_bytes) {}
  void write_chunk();
  void write_all(const std::string& bytes);
  Error error(const std::string& reason) const;

  int fd_ = -1;
  std::string dir_;
  size_t buffer_bytes_;
  std::string buffer_;                                  // encoded records, in the order added
  std::vector<std::pair<uint32_t, uint32_t>> entries_;  // (job id, offset of its record in buffer_)
  std::vector<Chunk> chunks_;                           // sorted chunks in the file
  uint64_t file_bytes_ = 0;
  size_t count_ = 0;
  std::string write_error_;  // the first write that failed ("" when none)
};

}  // namespace topsim
