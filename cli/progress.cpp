#include "cli/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "util/number_format.h"

namespace topsim::cli {

bool stderr_is_terminal() {
  const char* forced = std::getenv("TOPSIM_PROGRESS");
  if (forced && std::strcmp(forced, "always") == 0) return true;
  return isatty(STDERR_FILENO) == 1;
}

std::string format_duration(double seconds) {
  const auto total = static_cast<int64_t>(std::max(0.0, std::round(seconds)));
  const int64_t days = total / 86400, hours = total / 3600 % 24, minutes = total / 60 % 60, secs = total % 60;
  if (days > 0) return fmt::format("{}d {:02}:{:02}:{:02}", days, hours, minutes, secs);
  return fmt::format("{:02}:{:02}:{:02}", hours, minutes, secs);
}

namespace {

std::string live_line(const std::string& label, const LiveProgress& p) {
  const double rate = p.elapsed_s > 0 ? static_cast<double>(p.events) / p.elapsed_s : 0;
  std::string eta = "--:--:--";
  if (p.events > 0 && rate > 0 && p.expected_events > p.events)
    eta = format_duration(static_cast<double>(p.expected_events - p.events) / rate);
  else if (p.events >= p.expected_events && p.events > 0)
    eta = format_duration(0);
  return fmt::format("{}: run {}/{}, simulated {}, {}/{} jobs done, {} events/s, ETA {}", label,
                     std::min(p.runs_done + 1, p.runs), p.runs, format_duration(p.simulated_s),
                     format_count(static_cast<long long>(p.jobs_done)), format_count(static_cast<long long>(p.jobs)),
                     format_fixed(rate, 0), eta);
}

}  // namespace

void attach_progress(ExperimentOptions& options, std::ostream& err, const ProgressOptions& progress) {
  const bool live = progress.terminal && !progress.quiet;
  if (progress.timing) {
    options.progress = [&err, live](const RunProgress& p) {
      if (live) err << "\r\033[K";  // the timing line replaces the live line, which is drawn again at the next tick
      err << fmt::format("[{}/{}] {} seed {}: {} jobs, {} events in {:.2f} s ({} events/s)\n", p.done, p.total, p.scheduler,
                         p.seed, format_count(static_cast<long long>(p.jobs)), format_count(static_cast<long long>(p.events)),
                         p.wall_s, format_fixed(static_cast<double>(p.events) / std::max(p.wall_s, 1e-9), 0));
      err.flush();
    };
  }
  if (live) {
    options.live = [&err, label = progress.label](const LiveProgress& p) {
      if (p.finished)
        err << "\r\033[K";
      else
        err << "\r\033[K" << live_line(label, p);
      err.flush();
    };
  }
}

}  // namespace topsim::cli
