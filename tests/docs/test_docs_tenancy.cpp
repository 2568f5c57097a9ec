// The figures docs/tenancy.md and the README quote of the tenancy scenarios (Kueue cohorts,
// flavors and Admission Fair Sharing, KAI's queues) are what the scenarios give (helpers:
// tests/docs/docs_figures.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/docs/docs_figures.h"

using namespace topsim::test::docs;
namespace fs = std::filesystem;

TEST_CASE("docs::the Admission Fair Sharing figures in docs/tenancy.md and the README are what the scenarios give", "[docs]") {
#ifndef TOPSIM_SANITIZED
  if (philly_absent()) return;
  const ReplayFigures fifo = run_shipped_replay("philly-kueue-shared");
  const ReplayFigures afs = run_shipped_replay("philly-kueue-afs");
  const auto row = [](const ReplayFigures& f, const std::string& s) {
    return " | " + s + " | " + whole(f.metric(s, "wait_s.mean")) + " / " + whole(f.metric(s, "wait_s.p95")) + " | " +
           whole(f.metric(s, "jct_s.mean")) + " | " + fmt::format("{:.3f}", f.metric(s, "tenant_fairness")) + " |";
  };
  const std::string doc = one_spaced(read_text(kRoot / "docs/tenancy.md"));
  CHECK_THAT(doc, Catch::Contains("| first come, first served (`philly-kueue-shared`)" + row(fifo, "topology-aware")));
  CHECK_THAT(doc, Catch::Contains("| |" + row(fifo, "default")));
  CHECK_THAT(doc,
             Catch::Contains("| Admission Fair Sharing, half-life 1 week (`philly-kueue-afs`)" + row(afs, "topology-aware")));
  CHECK_THAT(doc, Catch::Contains("| |" + row(afs, "default")));
  const auto p95 = [](const ReplayFigures& f, const std::string& s, const std::string& vc) {
    return whole(f.metric(s, "wait_s.p95@" + vc));
  };
  for (const std::string vc : {"103959", "11cb48"})
    CHECK_THAT(doc, Catch::Contains(vc + "'s" + (vc == "103959" ? " p95 wait" : "") + " from " + p95(fifo, "topology-aware", vc) +
                                    " to " + p95(afs, "topology-aware", vc) + " s"));
  CHECK_THAT(doc, Catch::Contains("(p95 " + p95(fifo, "topology-aware", "ee9e8c") + " to " +
                                  p95(afs, "topology-aware", "ee9e8c") + " s)"));
  CHECK_THAT(doc,
             Catch::Contains("(p95 from " + p95(fifo, "default", "7f04ca") + " to " + p95(afs, "default", "7f04ca") + " s)"));
  const std::string readme = one_spaced(read_text(kRoot / "README.md"));
  CHECK_THAT(readme, Catch::Contains(readme_fairness(afs, fifo)));
#endif
}

TEST_CASE("docs::the KAI time-aware fairness figures in docs/tenancy.md and the README are what the scenarios give", "[docs]") {
#ifndef TOPSIM_SANITIZED
  if (philly_absent()) return;
  const ReplayFigures weights = run_shipped_replay("philly-kai-shared");
  const ReplayFigures usage = run_shipped_replay("philly-kai-timeaware");
  const auto row = [](const ReplayFigures& f, const std::string& s) {
    return " | " + s + " | " + whole(f.metric(s, "wait_s.mean")) + " / " + whole(f.metric(s, "wait_s.p95")) + " | " +
           whole(f.metric(s, "jct_s.mean")) + " | " + whole(f.metric(s, "evictions")) + " | " +
           fmt::format("{:.3f}", f.metric(s, "tenant_fairness")) + " |";
  };
  const std::string doc = one_spaced(read_text(kRoot / "docs/tenancy.md"));
  CHECK_THAT(doc, Catch::Contains("| by weight (`philly-kai-shared`)" + row(weights, "topology-aware")));
  CHECK_THAT(doc, Catch::Contains("| |" + row(weights, "default")));
  CHECK_THAT(doc, Catch::Contains("| time-aware, a week's usage (`philly-kai-timeaware`)" + row(usage, "topology-aware")));
  CHECK_THAT(doc, Catch::Contains("| |" + row(usage, "default")));
  const auto p95 = [](const ReplayFigures& f, const std::string& vc) {
    return whole(f.metric("topology-aware", "wait_s.p95@" + vc));
  };
  for (const std::string vc : {"e13805", "23dbec"})
    CHECK_THAT(doc, Catch::Contains(vc + "'s" + (vc == "e13805" ? " p95 wait" : "") + " falls from " + p95(weights, vc) + " to " +
                                    p95(usage, vc) + " s"));
  CHECK_THAT(doc, Catch::Contains("(p95 " + p95(weights, "ee9e8c") + " to " + p95(usage, "ee9e8c") + " s)"));
  CHECK_THAT(doc, Catch::Contains("(" + whole(weights.metric("default", "evictions")) + " to " +
                                  whole(usage.metric("default", "evictions")) + ", " +
                                  whole(weights.metric("default", "preempted_gpu_hours")) + " to " +
                                  whole(usage.metric("default", "preempted_gpu_hours")) + " GPU-hours lost)"));
  const std::string readme = one_spaced(read_text(kRoot / "README.md"));
  CHECK_THAT(readme, Catch::Contains(readme_fairness(usage, weights)));
#endif
}

// docs/tenancy.md's table of Kueue flavors that hold nodes against flavors that divide quota
// only: the shipped scenario, and the same with its flavors' nodeLabels removed (built here).
TEST_CASE("docs::the Kueue flavor figures in docs/tenancy.md are what the scenario and its quota-only copy give", "[docs]") {
#ifndef TOPSIM_SANITIZED
  const std::string doc = read_text(kRoot / "docs/tenancy.md");
  const TempDir dir;
  const fs::path queues = kRoot / "scenarios/queues/mixed-h100-a100-flavors";
  fs::create_directories(dir.path / "queues");
  for (const auto& file : fs::directory_iterator(queues)) {
    std::istringstream in(read_text(file.path()));
    std::ofstream out(dir.path / "queues" / file.path().filename());
    bool labels = false;  // inside a nodeLabels block: its lines are indented past it
    for (std::string line; std::getline(in, line);) {
      if (labels && line.rfind("    ", 0) == 0) continue;
      labels = line == "  nodeLabels:";
      if (!labels) out << line << "\n";
    }
  }
  REQUIRE(read_text(dir.path / "queues/flavors.yaml").find("  nodeLabels:") == std::string::npos);
  nlohmann::json scenario = movable_scenario("mixed-h100-a100-kueue-flavors");
  scenario["tenancy"]["queues"] = (dir.path / "queues").string();
  std::ofstream(dir.file("quota-only.json")) << scenario.dump();
  const ReplayFigures held = run_shipped_replay("mixed-h100-a100-kueue-flavors");
  const ReplayFigures quota = run_replay(dir.file("quota-only.json"));
  const int h100_nodes = held.results.at("scenario").at("node_groups").at(0).at("count").get<int>();
  const auto row = [&](const ReplayFigures& f, const std::string& scheduler) {
    size_t both = 0;  // jobs with pods on both GPU models
    for (const nlohmann::json& j : f.jobs) {
      if (j.at("scheduler") != scheduler || !j.contains("pods")) continue;
      bool h100 = false, a100 = false;
      for (const nlohmann::json& pod : j.at("pods")) (pod.at("node").get<int>() < h100_nodes ? h100 : a100) = true;
      both += h100 && a100;
    }
    return " | " + tenth(f.metric(scheduler, "jct_s.mean")) + " s | " + tenth(f.mean_jct_selecting(scheduler, {"h100"})) +
           " s | " + tenth(f.mean_jct_selecting(scheduler, {"a100"})) + " s | " +
           tenth(f.mean_jct_selecting(scheduler, nlohmann::json::array())) + " s | " + whole(static_cast<double>(both)) + " |";
  };
  for (const std::string scheduler : {"topology-aware", "default"}) {
    CHECK_THAT(doc, Catch::Contains("| " + scheduler + ", flavors hold nodes" + row(held, scheduler)));
    CHECK_THAT(doc, Catch::Contains("| " + scheduler + ", quota only" + row(quota, scheduler)));
  }
  const auto change = [&](const std::string& scheduler) {
    return whole(std::abs(held.metric(scheduler, "jct_s.mean") / quota.metric(scheduler, "jct_s.mean") - 1) * 100);
  };
  const std::string spaced = one_spaced(doc);
  CHECK_THAT(spaced, Catch::Contains("- Topology-aware loses " + change("topology-aware") + "%:"));
  CHECK_THAT(spaced, Catch::Contains("- Default gains " + change("default") + "%:"));
#endif
}

// docs/tenancy.md's KAI tables: philly-kai under both schedulers, and the same with
// `reclaimMinRuntime` 30m and 32m on the department (copies of its queues, built here), with
// the sentences drawn from them.
TEST_CASE("docs::the KAI reclaimMinRuntime figures in docs/tenancy.md are what the scenario and its copies give", "[docs]") {
#ifndef TOPSIM_SANITIZED
  if (philly_absent()) return;
  const std::string doc = read_text(kRoot / "docs/tenancy.md");
  const TempDir dir;
  const auto with_min_runtime = [&](const std::string& runtime) {
    std::string queues = read_text(kRoot / "scenarios/queues/philly-vcs-kai/queues.yaml");
    const std::string department = "  displayName: Philly VCs\n";
    const size_t at = queues.find(department);
    REQUIRE(at != std::string::npos);
    queues.insert(at + department.size(), "  reclaimMinRuntime: " + runtime + "\n");
    fs::create_directories(dir.path / runtime);
    std::ofstream(dir.path / runtime / "queues.yaml") << queues;
    nlohmann::json scenario = movable_scenario("philly-kai");
    scenario["tenancy"]["queues"] = (dir.path / runtime).string();
    std::ofstream(dir.path / (runtime + ".json")) << scenario.dump();
    return run_replay(dir.path / (runtime + ".json"));
  };
  const ReplayFigures none = run_shipped_replay("philly-kai");
  const ReplayFigures m30 = with_min_runtime("30m"), m32 = with_min_runtime("32m");
  const auto cells = [](const ReplayFigures& f, const std::string& s) {
    return " | " + whole(f.metric(s, "wait_s.mean")) + " / " + whole(f.metric(s, "wait_s.p95")) + " | " +
           whole(f.metric(s, "evictions")) + " | " + whole(f.metric(s, "preempted_gpu_hours")) + " |";
  };
  const auto jain = [](const ReplayFigures& f, const std::string& s) {
    return fmt::format("{:.3f}", f.metric(s, "tenant_fairness"));
  };
  for (const std::string s : {"topology-aware", "default"}) {
    const std::string first = s == "topology-aware" ? "| KAI queues (`philly-kai`) | " : "| | ";
    CHECK_THAT(doc, Catch::Contains(first + s + cells(none, s) + " " + whole(none.metric(s, "borrowed_gpu_hours")) + " | " +
                                    jain(none, s) + " |"));
    CHECK_THAT(doc, Catch::Contains((s == "topology-aware" ? "| none (`philly-kai`) | " : "| | ") + s + cells(none, s) + " " +
                                    jain(none, s) + " |"));
    CHECK_THAT(doc,
               Catch::Contains((s == "topology-aware" ? "| 30m | " : "| | ") + s + cells(m30, s) + " " + jain(m30, s) + " |"));
    CHECK_THAT(doc,
               Catch::Contains((s == "topology-aware" ? "| 32m | " : "| | ") + s + cells(m32, s) + " " + jain(m32, s) + " |"));
  }
  const std::string spaced = one_spaced(doc);
  const auto fewer = [&](const std::string& s) { return 1 - m30.metric(s, "evictions") / none.metric(s, "evictions"); };
  const auto lost = [&](const std::string& s) {
    return m30.metric(s, "preempted_gpu_hours") / none.metric(s, "preempted_gpu_hours");
  };
  // "2.3 to 2.5 times", or "2.7 times" when both round alike.
  const std::string least = tenth(std::min(lost("topology-aware"), lost("default")));
  const std::string most = tenth(std::max(lost("topology-aware"), lost("default")));
  CHECK_THAT(spaced, Catch::Contains(whole(100 * std::min(fewer("topology-aware"), fewer("default"))) + "-" +
                                     whole(100 * std::max(fewer("topology-aware"), fewer("default"))) +
                                     "% fewer evictions and shorter waits, but " +
                                     (least == most ? least : least + " to " + most) + " times the GPU-hours lost (30m)"));
  CHECK_THAT(spaced, Catch::Contains("(Jain " + jain(none, "topology-aware") + " to " + jain(m30, "topology-aware") + ", " +
                                     jain(m32, "topology-aware") + " at 32m) and swings under default (" + jain(none, "default") +
                                     " to " + jain(m30, "default") + " at 30m, " + jain(m32, "default") + " at 32m)"));
#endif
}

// docs/tenancy.md's most-preempted job of philly-kai under topology-aware: its name and GPUs, its
// evictions (all reclaims), how many came from the VC that made most, and the share of its run
// not spent training, from results.json's preemptions and jobs.jsonl; and explain says the same.
TEST_CASE("docs::the most-preempted job's figures in docs/tenancy.md are what philly-kai and explain give", "[docs][kai]") {
#ifndef TOPSIM_SANITIZED
  if (philly_absent()) return;
  const TempDir dir;
  REQUIRE(run_cli("run '" + (kRoot / "scenarios/philly-kai.json").string() + "' -o '" + dir.file("out") +
                  "' -q --no-report --threads 2")
              .exit_code == 0);
  const auto results = nlohmann::json::parse(read_text(dir.file("out/results.json")));
  std::map<uint64_t, std::pair<std::string, nlohmann::json>> jobs;  // topology-aware's, by id: name, line
  std::istringstream lines(read_text(dir.file("out/jobs.jsonl")));
  for (std::string line; std::getline(lines, line);)
    if (auto j = nlohmann::json::parse(line); j.at("scheduler") == "topology-aware")
      jobs[j.at("id").get<uint64_t>()] = {j.at("name").get<std::string>(), j};
  const nlohmann::json* columns = nullptr;
  for (const auto& s : results.at("schedulers"))
    if (s.at("name") == "topology-aware") columns = &s.at("runs").at(0).at("preemptions");
  REQUIRE(columns);
  std::map<uint64_t, size_t> evicted;
  for (const auto& id : columns->at("job")) ++evicted[id.get<uint64_t>()];
  const auto most =
      std::max_element(evicted.begin(), evicted.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  std::map<std::string, size_t> by_queue;
  for (size_t i = 0; i < columns->at("job").size(); ++i)
    if (columns->at("job")[i] == most->first) {
      CHECK(columns->at("reason")[i] == "reclaim");
      ++by_queue[jobs.at(columns->at("by")[i].get<uint64_t>()).second.at("queue").get<std::string>()];
    }
  const auto top =
      std::max_element(by_queue.begin(), by_queue.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  const auto& [name, line] = jobs.at(most->first);
  CHECK(line.at("evictions") == most->second);
  const CliResult explained = run_cli("explain '" + dir.file("out") + "' " + name);
  REQUIRE(explained.exit_code == 0);
  // topology-aware is the scenario's first scheduler: its lines come first.
  const std::string effective = first_group(explained.out, "effective training time ([0-9.]+)%");
  REQUIRE(!effective.empty());
  CHECK_THAT(one_spaced(read_text(kRoot / "docs/tenancy.md")),
             Catch::Contains(fmt::format("({}, {} GPUs) was evicted {} times by reclaims, {} of them by jobs of VC {}, and "
                                         "spent {:.1f}% of its run",
                                         name, line.at("workers").get<int>() * line.at("gpus_per_worker").get<int>(),
                                         most->second, top->second, top->first, 100 - std::stod(effective))));
#endif
}

// docs/tenancy.md's table of the Philly trace as Kueue tenants (no cohort, one cohort, Fair
// Sharing) and the README's sentence drawn from it.
TEST_CASE("docs::the Kueue cohort figures in docs/tenancy.md and the README are what the scenarios give", "[docs]") {
#ifndef TOPSIM_SANITIZED
  if (philly_absent()) return;
  const std::string doc = read_text(kRoot / "docs/tenancy.md");
  const ReplayFigures alone = run_shipped_replay("philly-kueue-no-borrowing");
  const ReplayFigures cohort = run_shipped_replay("philly-kueue");
  const ReplayFigures fair = run_shipped_replay("philly-kueue-fair");
  const auto row = [](const ReplayFigures& f, const std::string& s) {
    return s + " | " + whole(f.metric(s, "wait_s.mean")) + " / " + whole(f.metric(s, "wait_s.p95")) + " | " +
           whole(f.metric(s, "evictions")) + " | " + whole(f.metric(s, "preempted_gpu_hours")) + " | " +
           whole(f.metric(s, "borrowed_gpu_hours")) + " | " + fmt::format("{:.3f}", f.metric(s, "tenant_fairness")) + " |";
  };
  CHECK_THAT(doc, Catch::Contains("| no cohort (`-no-borrowing`) | " + row(alone, "topology-aware")));
  CHECK_THAT(doc, Catch::Contains("| one cohort, reclaim `Any` | " + row(cohort, "topology-aware")));
  CHECK_THAT(doc, Catch::Contains("| same, Fair Sharing on (`-fair`) | " + row(fair, "topology-aware")));
  for (const ReplayFigures* f : {&alone, &cohort, &fair}) CHECK_THAT(doc, Catch::Contains("| | " + row(*f, "default")));
  const auto topo = [](const ReplayFigures& f, const std::string& metric) { return whole(f.metric("topology-aware", metric)); };
  CHECK_THAT(
      one_spaced(read_text(kRoot / "README.md")),
      Catch::Contains("Mean wait (topology-aware) " + topo(cohort, "wait_s.mean") + " s with borrowing against " +
                      topo(alone, "wait_s.mean") + " s without, for " + topo(cohort, "evictions") + " evictions costing " +
                      topo(cohort, "preempted_gpu_hours") + " GPU-hours; Fair Sharing " + topo(fair, "wait_s.mean") + " s, " +
                      topo(fair, "evictions") + " evictions, " + topo(fair, "preempted_gpu_hours") + " GPU-hours"));
#endif
}
