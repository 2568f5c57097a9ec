// Running one worker function on several threads: the experiment's runs and the plan's searches
// each pull their next task from a shared counter inside `worker`.
#pragma once

#include <cstddef>
#include <functional>

namespace topsim {

// Runs `worker` on the calling thread and on up to min(threads, tasks) - 1 more, and returns when
// all have returned. Fewer threads are used when the system cannot make more (never an error).
void run_workers(int threads, size_t tasks, const std::function<void()>& worker);

// A `--threads` value as the commands take it: 0 (or less) means every core of the machine.
int threads_or_all_cores(int threads);

}  // namespace topsim
