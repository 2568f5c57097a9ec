#include "util/workers.h"

#include <algorithm>
#include <system_error>
#include <thread>
#include <vector>

namespace topsim {

void run_workers(int threads, size_t tasks, const std::function<void()>& worker) {
  std::vector<std::thread> pool;
  for (int t = 1; t < threads && static_cast<size_t>(t) < tasks; ++t) {
    try {
      pool.emplace_back(worker);
    } catch (const std::system_error&) {
      break;  // fewer threads: the remaining tasks go to the threads we have
    }
  }
  worker();
  for (std::thread& thread : pool) thread.join();
}

int threads_or_all_cores(int threads) {
  return threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace topsim
