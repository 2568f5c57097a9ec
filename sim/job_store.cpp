#include "sim/job_store.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <queue>

namespace topsim {
namespace {

constexpr size_t kHeaderBytes = 8;       // job id, payload bytes (u32 each)
constexpr size_t kWriteBytes = 1 << 20;  // bytes gathered before one write
constexpr size_t kReadBytes = 64 << 10;  // read buffer of each chunk while merging

template <class T>
void put(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

void put_text(std::string& out, const std::string& text) {
  put(out, static_cast<uint32_t>(text.size()));
  out += text;
}

// Reads the encoded fields back, in the order they were put.
class Decoder {
 public:
  explicit Decoder(const char* at) : at_(at) {}
  template <class T>
  T get() {
    T value;
    std::memcpy(&value, at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  std::string text() {
    const auto size = get<uint32_t>();
    std::string value(at_, size);
    at_ += size;
    return value;
  }

 private:
  const char* at_;
};

// An LLM step's figures, in one fixed order (encode and decode share it).
std::array<double*, 17> llm_fields(LlmStep& s) {
  return {&s.step_ms,
          &s.compute_ms,
          &s.tp_ms,
          &s.ep_ms,
          &s.cp_ms,
          &s.pp_bubble_ms,
          &s.pp_p2p_ms,
          &s.dp_exposed_ms,
          &s.dp_comm_ms,
          &s.optimizer_ms,
          &s.offload_ms,
          &s.tokens_per_sec,
          &s.tokens_per_sec_per_gpu,
          &s.model_tflops_per_gpu,
          &s.mfu,
          &s.memory.parameters_gib,
          &s.memory.activations_gib};
}

void encode(std::string& out, const JobRecord& r) {
  put(out, static_cast<uint8_t>(r.state));
  put(out, static_cast<uint8_t>(r.cross_numa));
  put(out, static_cast<uint8_t>(r.comm.nvlink_hops));
  put(out, static_cast<uint8_t>(r.comm.transport));
  put(out, static_cast<uint8_t>(r.comm.algorithm));
  for (const int64_t ms : {r.submit_ms, r.start_ms, r.finish_ms, r.first_pod_ms}) put(out, ms);
  put(out, static_cast<int32_t>(r.comm.ranks));
  put(out, static_cast<int32_t>(r.comm.hosts));
  for (const double value : {r.comm.bus_bandwidth_gbps, r.comm.ring_bus_gbps, r.comm.nvls_bus_gbps, r.comm.tree_bus_gbps,
                             r.samples_per_sec, r.ideal_samples_per_sec, r.work_samples})
    put(out, value);
  // The tuner's figures, only where one differs from its candidate's (3 hosts): a byte for most jobs.
  const bool tuner_figures = r.comm.nvls_tuner_bus_gbps >= 0 || r.comm.tree_tuner_bus_gbps >= 0;
  put(out, static_cast<uint8_t>(tuner_figures));
  if (tuner_figures)
    for (const double value : {r.comm.nvls_tuner_bus_gbps, r.comm.tree_tuner_bus_gbps}) put(out, value);
  put(out, static_cast<uint32_t>(r.pods.size()));
  for (const PodPlacement& pod : r.pods) {
    put(out, static_cast<int32_t>(pod.node));
    put(out, pod.placed_ms);
    put(out, static_cast<uint32_t>(pod.gpus.size()));
    for (const int gpu : pod.gpus) put(out, static_cast<int32_t>(gpu));
  }
  put(out, static_cast<uint32_t>(r.relaxed.size()));
  for (const std::string& constraint : r.relaxed) put_text(out, constraint);
  put_text(out, r.reason);
  put_text(out, r.placement_note);
  put(out, static_cast<uint8_t>(r.host_network));
  put(out, r.contended_ms);
  put(out, r.least_network_share);
  put(out, r.admitted_ms);
  put(out, r.evictions);
  put(out, r.flavor);
  put(out, r.lost_gpu_ms);
  put(out, r.interruptions);
  put(out, r.resizes);
  for (const int64_t ms : {r.recompute_ms, r.restart_ms, r.checkpoint_ms, r.requeue_ms}) put(out, ms);
  put(out, static_cast<uint8_t>(r.llm != nullptr));
  if (r.llm) {
    LlmStep step = *r.llm;
    for (const double* value : llm_fields(step)) put(out, *value);
    put(out, static_cast<int32_t>(step.micro_batch));
    put(out, static_cast<int32_t>(step.tp));
    put(out, static_cast<int32_t>(step.pp));
  }
}

JobRecord decode(const char* at) {
  Decoder in(at);
  JobRecord r;
  r.state = static_cast<JobState>(in.get<uint8_t>());
  r.cross_numa = in.get<uint8_t>() != 0;
  r.comm.nvlink_hops = in.get<uint8_t>() != 0;
  r.comm.transport = static_cast<CommTransport>(in.get<uint8_t>());
  r.comm.algorithm = static_cast<NcclAlgorithm>(in.get<uint8_t>());
  for (int64_t* ms : {&r.submit_ms, &r.start_ms, &r.finish_ms, &r.first_pod_ms}) *ms = in.get<int64_t>();
  r.comm.ranks = in.get<int32_t>();
  r.comm.hosts = in.get<int32_t>();
  for (double* value : {&r.comm.bus_bandwidth_gbps, &r.comm.ring_bus_gbps, &r.comm.nvls_bus_gbps, &r.comm.tree_bus_gbps,
                        &r.samples_per_sec, &r.ideal_samples_per_sec, &r.work_samples})
    *value = in.get<double>();
  if (in.get<uint8_t>() != 0)
    for (double* value : {&r.comm.nvls_tuner_bus_gbps, &r.comm.tree_tuner_bus_gbps}) *value = in.get<double>();
  r.pods.resize(in.get<uint32_t>());
  for (PodPlacement& pod : r.pods) {
    pod.node = in.get<int32_t>();
    pod.placed_ms = in.get<int64_t>();
    pod.gpus.resize(in.get<uint32_t>());
    for (int& gpu : pod.gpus) gpu = in.get<int32_t>();
  }
  r.relaxed.resize(in.get<uint32_t>());
  for (std::string& constraint : r.relaxed) constraint = in.text();
  r.reason = in.text();
  r.placement_note = in.text();
  r.host_network = in.get<uint8_t>() != 0;
  r.contended_ms = in.get<int64_t>();
  r.least_network_share = in.get<double>();
  r.admitted_ms = in.get<int64_t>();
  r.evictions = in.get<uint16_t>();
  r.flavor = in.get<int16_t>();
  r.lost_gpu_ms = in.get<int64_t>();
  r.interruptions = in.get<uint16_t>();
  r.resizes = in.get<uint16_t>();
  for (int64_t* ms : {&r.recompute_ms, &r.restart_ms, &r.checkpoint_ms, &r.requeue_ms}) *ms = in.get<int64_t>();
  if (in.get<uint8_t>() != 0) {
    LlmStep step;
    for (double* value : llm_fields(step)) *value = in.get<double>();
    step.micro_batch = in.get<int32_t>();
    step.tp = in.get<int32_t>();
    step.pp = in.get<int32_t>();
    r.llm = std::make_shared<const LlmStep>(step);
  }
  return r;
}

// One sorted chunk of the file, read record by record through a buffer.
class ChunkReader {
 public:
  ChunkReader(int fd, uint64_t offset, uint64_t bytes) : fd_(fd), next_(offset), end_(offset + bytes) {}

  // Makes the next record available; false at the end of the chunk. Error: a read failed.
  Expected<bool> advance() {
    pos_ += record_bytes_;
    record_bytes_ = 0;
    if (pos_ == buffer_.size() && next_ == end_) return false;
    if (Status s = fill(kHeaderBytes); !s) return s.error();
    uint32_t payload = 0;
    std::memcpy(&id_, buffer_.data() + pos_, 4);
    std::memcpy(&payload, buffer_.data() + pos_ + 4, 4);
    if (Status s = fill(kHeaderBytes + payload); !s) return s.error();
    record_bytes_ = kHeaderBytes + payload;
    return true;
  }
  uint32_t id() const { return id_; }
  JobRecord record() const { return decode(buffer_.data() + pos_ + kHeaderBytes); }

 private:
  // At least `bytes` unread bytes in the buffer.
  Status fill(size_t bytes) {
    if (buffer_.size() - pos_ >= bytes) return Status::success();
    buffer_.erase(0, pos_);
    pos_ = 0;
    const size_t have = buffer_.size();
    const size_t want = static_cast<size_t>(std::min<uint64_t>(std::max(bytes - have, kReadBytes), end_ - next_));
    if (have + want < bytes) return Error{"a record runs past the end of its chunk"};
    buffer_.resize(have + want);
    for (size_t done = 0; done < want;) {
      const ssize_t n = ::pread(fd_, buffer_.data() + have + done, want - done, static_cast<off_t>(next_ + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Error{n < 0 ? std::strerror(errno) : "the file is shorter than written"};
      done += static_cast<size_t>(n);
    }
    next_ += want;
    return Status::success();
  }

  int fd_;
  uint64_t next_, end_;  // the unread part of the chunk in the file
  std::string buffer_;
  size_t pos_ = 0, record_bytes_ = 0;
  uint32_t id_ = 0;
};

}  // namespace

Expected<std::unique_ptr<JobStore>> JobStore::create(const std::string& dir, size_t buffer_bytes) {
  std::string path = (dir.empty() ? std::string(".") : dir) + "/.topsim-jobs-XXXXXX";
  const int fd = ::mkstemp(path.data());
  if (fd < 0) return Error{"cannot keep the per-job records in '" + dir + "': " + std::strerror(errno)};
  ::unlink(path.c_str());
  return std::unique_ptr<JobStore>(new JobStore(fd, dir, std::max<size_t>(buffer_bytes, 1)));
}

JobStore::~JobStore() {
  if (fd_ >= 0) ::close(fd_);
}

Error JobStore::error(const std::string& reason) const {
  return Error{"cannot keep the per-job records in '" + dir_ + "': " + reason};
}

void JobStore::add(uint32_t id, const JobRecord& record) {
  const size_t start = buffer_.size();
  put(buffer_, id);
  put(buffer_, uint32_t{0});  // payload bytes, set below
  encode(buffer_, record);
  const auto payload = static_cast<uint32_t>(buffer_.size() - start - kHeaderBytes);
  std::memcpy(buffer_.data() + start + 4, &payload, 4);
  entries_.emplace_back(id, static_cast<uint32_t>(start));
  ++count_;
  if (buffer_.size() >= buffer_bytes_) write_chunk();
}

void JobStore::write_chunk() {
  if (entries_.empty()) return;
  std::sort(entries_.begin(), entries_.end());
  Chunk chunk{file_bytes_, 0};
  std::string out;
  for (const auto& [id, offset] : entries_) {
    uint32_t payload = 0;
    std::memcpy(&payload, buffer_.data() + offset + 4, 4);
    out.append(buffer_, offset, kHeaderBytes + payload);
    if (out.size() < kWriteBytes) continue;
    chunk.bytes += out.size();
    write_all(out);
    out.clear();
  }
  chunk.bytes += out.size();
  write_all(out);
  chunks_.push_back(chunk);
  buffer_.clear();
  entries_.clear();
}

void JobStore::write_all(const std::string& bytes) {
  for (size_t done = 0; write_error_.empty() && done < bytes.size();) {
    const ssize_t n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(file_bytes_));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      write_error_ = n < 0 ? std::strerror(errno) : "nothing written";
      break;
    }
    done += static_cast<size_t>(n);
    file_bytes_ += static_cast<uint64_t>(n);
  }
}

Status JobStore::finish() {
  write_chunk();
  buffer_.shrink_to_fit();
  entries_.shrink_to_fit();
  if (!write_error_.empty()) return error(write_error_);
  return Status::success();
}

Status JobStore::for_each(const std::function<void(uint32_t, const JobRecord&)>& each) const {
  std::vector<ChunkReader> readers;
  readers.reserve(chunks_.size());
  using Head = std::pair<uint32_t, size_t>;  // (job id, reader)
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  for (const Chunk& chunk : chunks_) {
    readers.emplace_back(fd_, chunk.offset, chunk.bytes);
    auto more = readers.back().advance();
    if (!more) return error(more.error().message);
    if (*more) heads.emplace(readers.back().id(), readers.size() - 1);
  }
  while (!heads.empty()) {
    const size_t r = heads.top().second;
    heads.pop();
    each(readers[r].id(), readers[r].record());
    auto more = readers[r].advance();
    if (!more) return error(more.error().message);
    if (*more) heads.emplace(readers[r].id(), r);
  }
  return Status::success();
}

}  // namespace topsim
