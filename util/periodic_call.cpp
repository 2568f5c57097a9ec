#include "util/periodic_call.h"

#include <algorithm>
#include <chrono>
#include <system_error>

namespace topsim {

PeriodicCall::PeriodicCall(std::function<void(bool finished)> tick, double every_s)
    : tick_(std::move(tick)), every_s_(std::max(0.05, every_s)) {
  if (!tick_) return;
  try {
    thread_ = std::thread([this] { run(); });
  } catch (const std::system_error&) {
    // no progress without a thread to draw it
  }
}

PeriodicCall::~PeriodicCall() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
  }
  wake_.notify_all();
  thread_.join();
  tick_(true);
}

void PeriodicCall::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto every = std::chrono::duration<double>(every_s_);
  do {
    lock.unlock();
    tick_(false);
    lock.lock();
  } while (!wake_.wait_for(lock, every, [this] { return stopped_; }));
}

}  // namespace topsim
