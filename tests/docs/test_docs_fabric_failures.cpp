// The figures docs/fabric.md, docs/failures.md and the README quote of the fabric and failure
// scenarios are what the scenarios give (helpers: tests/docs/docs_figures.h).
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/docs/docs_figures.h"

using namespace topsim::test::docs;

// docs/fabric.md's table of both fabric scenarios under every scheduler (mean wait, mean JCT,
// jobs slowed by shared uplinks and the GPU-hours they ran slowed), its kube-tas table and the
// README's GB200 sentence.
TEST_CASE("docs::the fabric scenarios' figures in docs/fabric.md and the README are what the scenarios give", "[docs]") {
#ifndef TOPSIM_SANITIZED
  const std::string doc = read_text(kRoot / "docs/fabric.md");
  for (const std::string name : {"fabric-h100-3level", "fabric-gb200-nvl72"}) {
    const ReplayFigures f = run_shipped_replay(name);
    std::string first = name;
    for (const auto& s : f.results.at("schedulers")) {
      const std::string scheduler = s.at("name").get<std::string>();
      const double slowed_hours = f.metric(scheduler, "contended_gpu_hours");
      const std::string row = "|" + (first.empty() ? "" : " " + first) + " | " + scheduler + " | " +
                              tenth(f.metric(scheduler, "wait_s.mean")) + " | " + tenth(f.metric(scheduler, "jct_s.mean")) +
                              " | " + whole(f.metric(scheduler, "contended_jobs")) + " / " +
                              (slowed_hours == 0 ? "0" : tenth(slowed_hours)) + " |";
      CHECK_THAT(doc, Catch::Contains(row));
      first = "";
    }
    const bool h100 = name == "fabric-h100-3level";
    const auto ring_row = [&](const std::string& scheduler) {
      return " | " + tenth(f.metric(scheduler, "wait_s.mean")) + " | " + tenth(f.metric(scheduler, "jct_s.mean")) + " | " +
             tenth(f.metric(scheduler, "ring_gbps.mean")) + " |";
    };
    CHECK_THAT(doc, Catch::Contains("| " + name +
                                    (h100 ? " (block) | kueue-tas (preferred rack)" : " (nvl72) | kueue-tas (preferred nvl72)") +
                                    ring_row("kueue-tas")));
    CHECK_THAT(doc, Catch::Contains("| | kube-tas" + ring_row("kube-tas")));
    if (!h100) {
      const std::string readme = one_spaced(read_text(kRoot / "README.md"));
      CHECK_THAT(readme, Catch::Contains("tier-aware mean JCT " + whole(f.metric("topology-aware", "jct_s.mean")) +
                                         " s against default's " + whole(f.metric("default", "jct_s.mean")) + " s"));
    }
  }
#endif
}

// docs/failures.md's table of both failure scenarios under both schedulers: failures and
// interruptions, the pre-training job's own interruptions, wall days and ETTR (jobs.jsonl), the
// goodput, the largest interrupted job's MTBF and Daly interval, the failures spares took.
TEST_CASE("docs::the failure scenarios' figures in docs/failures.md are what the scenarios give", "[docs][failures]") {
#ifndef TOPSIM_SANITIZED
  const std::string doc = read_text(kRoot / "docs/failures.md");
  const ReplayFigures plain = run_shipped_replay("failures-h100-16k");
  const ReplayFigures spares = run_shipped_replay("failures-h100-16k-spares");
  const std::vector<std::pair<const ReplayFigures*, std::string>> columns = {
      {&plain, "topology-aware"}, {&plain, "default"}, {&spares, "topology-aware"}, {&spares, "default"}};
  const auto row = [&](const std::string& title,
                       const std::function<std::string(const ReplayFigures&, const std::string&)>& cell) {
    std::string out = "| " + title + " |";
    for (const auto& [f, scheduler] : columns) out += " " + cell(*f, scheduler) + " |";
    return out;
  };
  CHECK_THAT(doc, Catch::Contains(row("node failures / jobs interrupted", [](const ReplayFigures& f, const std::string& s) {
               return whole(f.metric(s, "node_failures")) + " / " + whole(f.metric(s, "interruptions"));
             })));
  CHECK_THAT(
      doc, Catch::Contains(row("pre-training: interruptions, wall days, ETTR", [](const ReplayFigures& f, const std::string& s) {
        const nlohmann::json& job = f.job(s, "llama3-405b-pretrain");
        const double run_s = job.at("finish_s").get<double>() - job.at("start_s").get<double>();
        double lost_s = 0;
        for (const char* key : {"recompute_s", "restart_s", "checkpoint_s", "requeue_s"}) lost_s += job.value(key, 0.0);
        return whole(job.at("interruptions").get<double>()) + ", " + tenth(job.at("jct_s").get<double>() / 86400) + ", " +
               fmt::format("{:.3f}", (run_s - lost_s) / run_s);
      })));
  CHECK_THAT(doc,
             Catch::Contains(row("goodput (GPU-weighted, finished training)", [](const ReplayFigures& f, const std::string& s) {
               return tenth(f.metric(s, "goodput") * 100) + "%";
             })));
  CHECK_THAT(doc, Catch::Contains(row("its MTBF / Daly interval", [](const ReplayFigures& f, const std::string& s) {
               return whole(f.metric(s, "interrupted_job_mtbf_s") / 60) + " / " +
                      tenth(f.metric(s, "checkpoint_optimum_s") / 60) + " min";
             })));
  CHECK_THAT(doc, Catch::Contains("| failures a spare took | | | " + whole(spares.metric("topology-aware", "spare_swaps")) +
                                  " | " + whole(spares.metric("default", "spare_swaps")) + " |"));
#endif
}
