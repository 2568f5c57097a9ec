// A function called from a thread of its own while work goes on: at once, then every `every_s`
// seconds, and a last time (`finished` true) when the object is destroyed. For progress lines;
// nothing is started for an empty function, or when no thread can be made.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace topsim {

class PeriodicCall {
 public:
  PeriodicCall(std::function<void(bool finished)> tick, double every_s);
  ~PeriodicCall();
  PeriodicCall(const PeriodicCall&) = delete;
  PeriodicCall& operator=(const PeriodicCall&) = delete;

 private:
  void run();

  std::function<void(bool)> tick_;
  double every_s_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopped_ = false;
  std::thread thread_;
};

}  // namespace topsim
