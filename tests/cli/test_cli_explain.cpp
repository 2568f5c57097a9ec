// `topsim explain RESULTS_DIR JOB`: one job under each scheduler of saved results, with the
// scheduler's reason when it never ran.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <string>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/scenario/scenario_support.h"
#include "tests/sim/tenancy/gpu_flavors_yaml.h"
#include "tests/test_support.h"

using topsim::test::check_bad_input;
using topsim::test::CliResult;
using topsim::test::run_cli;
using topsim::test::TempDir;

namespace {

// The two-node scenario without NICs (tests/scenario/scenario_support.h) run into dir/out.
std::string run_without_nics(const TempDir& dir) {
  std::ofstream(dir.file("no-nic.json")) << topsim::test::kNodeWithoutNicJson;
  std::ofstream(dir.file("s.json"))
      << R"({"name": "nonic", "seed": 7, "cluster": {"nodes": [{"model": "no-nic.json", "count": 2}]},
    "workload": {"kind": "jobs", "jobs": [
      {"name": "big", "submit_s": 0, "workers": 2, "gpus_per_worker": 8, "model": "resnet50", "iterations": 100},
      {"name": "small", "submit_s": 0, "workers": 2, "gpus_per_worker": 1, "model": "resnet50", "iterations": 100}]},
    "schedulers": ["topology-aware", "default"]})";
  const CliResult r = run_cli("run '" + dir.file("s.json") + "' -o '" + dir.file("out") + "' -q --no-report");
  REQUIRE(r.exit_code == 0);
  return dir.file("out");
}

// Runs dir/s.json into dir/out and explains `job` there; both must succeed.
CliResult run_then_explain(const TempDir& dir, const std::string& job) {
  REQUIRE(run_cli("run '" + dir.file("s.json") + "' -o '" + dir.file("out") + "' -q --no-report").exit_code == 0);
  CliResult r = run_cli("explain '" + dir.file("out") + "' " + job);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r;
}

// q/queues.yaml in dir: ClusterQueues a and b of `nominal` GPUs each in cohort lab, a reclaiming
// from any borrower, and priority class high.
void write_lab_queues(const TempDir& dir, int nominal) {
  std::filesystem::create_directories(dir.path / "q");
  std::ofstream(dir.file("q/queues.yaml")) << R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: high}
value: 100
)" << [&] {
    std::string out;
    for (const char* name : {"a", "b"})
      out += std::string("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: ") + name +
             "}\nspec:\n  cohortName: lab\n" + (name == std::string("a") ? "  preemption: {reclaimWithinCohort: Any}\n" : "") +
             "  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n    flavors:\n    - name: default\n"
             "      resources: [{name: nvidia.com/gpu, nominalQuota: " +
             std::to_string(nominal) + "}]\n";
    return out;
  }();
}

// One DGX-1: ClusterQueues a and b of 4 GPUs in cohort lab, a reclaiming from any borrower. b1
// and b2 (b) start at 0 s, b2 on a's idle quota; a1 (a, priority class high) reclaims it at
// 100 s; b2 runs again once b1 ends. Written into dir (s.json, q/).
void write_reclaim_scenario(const TempDir& dir) {
  write_lab_queues(dir, 4);
  std::ofstream(dir.file("s.json")) << R"({"name": "reclaim", "cluster": {"nodes": [{"model": "dgx1-v100", "count": 1}]},
    "workload": {"kind": "jobs", "jobs": [
      {"name": "b1", "submit_s": 0, "workers": 1, "gpus_per_worker": 4, "model": "resnet50", "duration_s": 1000, "queue": "b"},
      {"name": "b2", "submit_s": 0, "workers": 1, "gpus_per_worker": 4, "model": "resnet50", "duration_s": 1000, "queue": "b"},
      {"name": "a1", "submit_s": 100, "workers": 1, "gpus_per_worker": 4, "model": "resnet50", "duration_s": 1000,
       "queue": "a", "priority_class": "high"}]},
    "tenancy": {"queues": "q"}, "schedulers": ["topology-aware"]})";
}

}  // namespace

TEST_CASE("cli::explain a job: placement, ring, throughput, and why it never ran", "[cli]") {
  TempDir dir;
  const std::string out = run_without_nics(dir);
  SECTION("the gang no node pair can take: the scheduler's reason under each") {
    const CliResult r = run_cli("explain '" + out + "' big");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out ==
          "job big (training, 2 pods x 8 GPUs, resnet50 / pytorch), submitted at 0 s\n"
          "topology-aware (seed 7): never placed\n"
          "  why: no NIC path: its 2 pods of 8 GPUs need several nodes and no node serving it has a NIC\n"
          "default (seed 7): rejected\n"
          "  why: node type no-nic has no NIC: its pods cannot reach pods on other nodes\n");
  }
  SECTION("a job that ran: its GPUs, ring and throughput") {
    const CliResult r = run_cli("explain '" + out + "' small");
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("topology-aware (seed 7): finished, waited 0 s, ran ") &&
                          Catch::Contains("  GPUs: node 0: GPUs 0,1\n  ring: pcie-p2p, ") &&
                          Catch::Contains(" images/s (100.0% of the ideal placement's "));
  }
  SECTION("an unknown job: exit 2, the closest name") {
    check_bad_input(run_cli("explain '" + out + "' smal"), "unknown job 'smal' (did you mean 'small'?)");
  }
}

TEST_CASE("cli::explain an LLM job: tokens/s and the step's breakdown under each scheduler", "[cli][llm]") {
  TempDir dir;
  std::ofstream(dir.file("s.json")) << R"({"name": "llm", "cluster": {"nodes": [{"model": "hgx-h100", "count": 6}],
    "network": {"transport": "ib"}}, "workload": {"kind": "jobs", "jobs": [
      {"name": "sft", "workers": 8, "gpus_per_worker": 4, "iterations": 10,
       "llm": {"model": "llama3-70b", "tp": 8, "pp": 2, "sequence": 4096, "global_batch": 16, "sequence_parallel": true}}]},
    "schedulers": ["topology-aware", "default"]})";
  const CliResult r = run_then_explain(dir, "sft");
  CHECK_THAT(r.out, Catch::StartsWith("job sft (training, 8 pods x 4 GPUs, llama3-70b: tp 8 x pp 2 x dp 2 x cp 1, ep 1), "
                                      "submitted at 0 s\n"));
  CHECK_THAT(r.out, Catch::Contains(" tokens/s (100.0% of the ideal placement's ") && Catch::Contains("  step: ") &&
                        Catch::Contains("+ tensor-parallel ") && Catch::Contains("tokens/s per GPU, MFU "));
  CHECK_THAT(r.out, Catch::Matches("(.|\n)*  step: [^\n]*%, micro-batch 1\n(.|\n)*"));  // the job list's micro-batch
  // The run's summaries and report carry the LLM jobs' mean step, and results.json keeps it.
  const std::string out = dir.file("out");
  CHECK_THAT(topsim::test::read_text(out + "/summary.txt"),
             Catch::Contains("LLM jobs, mean step (first seed)") && Catch::Contains("llama3-70b"));
  const std::string results = topsim::test::read_text(out + "/results.json");
  CHECK_THAT(results, Catch::Contains("\"llm_step_by_model\"") && Catch::Contains("\"tensor_parallel_s\""));
  REQUIRE(run_cli("report '" + out + "' -o '" + dir.file("again") + "'").exit_code == 0);
  CHECK_THAT(topsim::test::read_text(dir.file("again") + "/report.html"), Catch::Contains("LLM jobs: where the step goes"));
  // jobs.csv names the LLM, its layout, the micro-batch it ran and its throughput's unit,
  // written from the run's records.
  CHECK_THAT(topsim::test::read_text(dir.file("again") + "/jobs.csv"),
             Catch::Contains(",workers,gpus_per_worker,gpu_mem_gib,gpu_core_percent,gpu_milli,model,framework,parallelism,"
                             "micro_batch,submit_s,") &&
                 Catch::Contains(",8,4,,,,llama3-70b,megatron,tp8 pp2 dp2 cp1 ep1,1,0,") && Catch::Contains(",tokens/s,655360,"));
  CHECK_THAT(topsim::test::read_text(dir.file("again") + "/summary.md"),
             Catch::Contains("| scheduler | LLM | jobs | tokens/s per GPU |"));
}

TEST_CASE("cli::explain an LLM job's settings come back from jobs.jsonl as its job list gave them", "[cli][llm]") {
  TempDir dir;
  const std::string jobs = R"([
      {"name": "pre", "workers": 8, "gpus_per_worker": 8, "iterations": 5,
       "llm": {"model": "llama3-70b", "tp": 4, "pp": 4, "vpp": 5, "global_batch": 128, "micro_batch": "auto",
               "sequence_parallel": true, "recompute": "none", "precision": "fp8", "tp_overlap": true, "dp_overlap": false}},
      {"name": "ft", "workers": 1, "gpus_per_worker": 8, "iterations": 5,
       "llm": {"model": "llama3-8b", "tp": 2, "sequence": 4096, "global_batch": 64, "micro_batch": 2, "recompute": "full",
               "zero": 3, "attention": "unfused"}},
      {"name": "off", "workers": 1, "gpus_per_worker": 8, "iterations": 5,
       "llm": {"model": "llama3-8b", "global_batch": 8, "recompute": "none", "zero": 3, "offload_layers": 4}}])";
  const auto scenario = [](const std::string& list) {
    return R"({"name": "llm", "cluster": {"nodes": [{"model": "hgx-h100", "count": 10}], "network": {"transport": "ib"}},
      "workload": {"kind": "jobs", "jobs": )" +
           list + R"(}, "schedulers": ["topology-aware"]})";
  };
  std::ofstream(dir.file("s.json")) << scenario(jobs);
  const CliResult pre = run_then_explain(dir, "pre");
  CHECK_THAT(pre.out,
             Catch::Contains("\ntraining: vpp 5, sequence 8192 tokens, global batch 128 sequences, micro-batch auto (the "
                             "fastest that fits on each node type), recompute none, sequence parallel on, zero 1, fp8, "
                             "fused attention, TP overlap on, data-parallel traffic not overlapped\n"));
  const CliResult ft = run_cli("explain '" + dir.file("out") + "' ft");
  CHECK_THAT(ft.out, Catch::Contains("\ntraining: vpp 1, sequence 4096 tokens, global batch 64 sequences, micro-batch 2 (8 per "
                                     "step), recompute full, sequence parallel off, zero 3, bf16, unfused attention\n"));
  const CliResult off = run_cli("explain '" + dir.file("out") + "' off");
  CHECK_THAT(off.out, Catch::Contains(", zero 3, bf16, fused attention, activations of 4 layers offloaded to host memory\n"));

  // Each line's llm_config, as a job list's "llm", runs the same step: nothing of the configuration is lost.
  std::ifstream lines(dir.file("out") + "/jobs.jsonl");
  nlohmann::json again = nlohmann::json::array();
  std::map<std::string, double> step_s;
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    REQUIRE(j.contains("llm_config"));
    step_s[j["name"]] = j["llm"]["step_s"];
    again.push_back({{"name", j["name"]},
                     {"workers", j["workers"]},
                     {"gpus_per_worker", j["gpus_per_worker"]},
                     {"iterations", 5},
                     {"llm", j["llm_config"]}});
  }
  REQUIRE(step_s.size() == 3);
  // Results written before llm_config name the layout only: explain states no settings it was not given.
  std::filesystem::create_directories(dir.path / "old");
  nlohmann::ordered_json results = nlohmann::ordered_json::parse(topsim::test::read_text(dir.file("out") + "/results.json"));
  results.erase("run");  // written before runs had an identity: no digest guards the lines
  std::ofstream(dir.file("old") + "/results.json") << results.dump();
  std::ofstream old_lines(dir.file("old") + "/jobs.jsonl");
  std::ifstream written(dir.file("out") + "/jobs.jsonl");
  for (std::string line; std::getline(written, line);) {
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(line);
    j.erase("llm_config");
    old_lines << j.dump() << "\n";
  }
  old_lines.close();
  const CliResult old = run_cli("explain '" + dir.file("old") + "' pre");
  INFO(old.err);
  CHECK_THAT(old.out, Catch::StartsWith("job pre (training, 8 pods x 8 GPUs, llama3-70b: tp 4 x pp 4 x dp 4 x cp 1, ep 1), "
                                        "submitted at 0 s\ntopology-aware (seed "));
  CHECK(again[0]["llm"] == nlohmann::json::parse(R"({"model": "llama3-70b", "tp": 4, "pp": 4, "dp": 4, "cp": 1, "ep": 1,
    "vpp": 5, "sequence": 8192, "global_batch": 128, "micro_batch": "auto", "recompute": "none", "sequence_parallel": true,
    "zero": 1, "precision": "fp8", "tp_overlap": true, "dp_overlap": false, "attention": "fused", "offload_layers": 0})"));
  std::ofstream(dir.file("again.json")) << scenario(again.dump());
  REQUIRE(run_cli("run '" + dir.file("again.json") + "' -o '" + dir.file("again") + "' -q --no-report").exit_code == 0);
  std::ifstream rerun(dir.file("again") + "/jobs.jsonl");
  int same = 0;
  for (std::string line; std::getline(rerun, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    CHECK(j["llm"]["step_s"].get<double>() == step_s[j["name"]]);
    same += j["llm"]["step_s"].get<double>() == step_s[j["name"]];
  }
  CHECK(same == 3);
}

TEST_CASE("cli::explain names nodes by the names the cluster gave them (kubectl)", "[cli]") {
  TempDir dir;
  std::ofstream(dir.file("nodes.json")) << R"({"kind": "List", "items": [
    {"kind": "Node", "metadata": {"name": "gpu-a", "labels": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}}, "status": {"allocatable": {"nvidia.com/gpu": "8"}}},
    {"kind": "Node", "metadata": {"name": "gpu-b", "labels": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}}, "status": {"allocatable": {"nvidia.com/gpu": "8"}}}]})";
  std::ofstream(dir.file("jobs.json"))
      << R"({"kind": "jobs", "jobs": [{"name": "g", "workers": 2, "gpus_per_worker": 8, "model": "vgg16", "iterations": 20}]})";
  REQUIRE(run_cli("run --cluster '" + dir.file("nodes.json") + "' --workload '" + dir.file("jobs.json") + "' -o '" +
                  dir.file("out") + "' -q --no-report")
              .exit_code == 0);
  const CliResult r = run_cli("explain '" + dir.file("out") + "' g");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("gpu-a (node 0): GPUs 0,1,2,3,4,5,6,7; gpu-b (node 1): GPUs 0,1,2,3,4,5,6,7"));
}

TEST_CASE("cli::explain a gang over two node types: paced by the slower, measured against the faster", "[cli]") {
  // One HGX H100 and one DGX A100 node, a 2 x 8-GPU ResNet-50 job over both: it runs as on two
  // A100 nodes (11,524 images/s) against the H100 nodes' ideal (22,103).
  TempDir dir;
  std::ofstream(dir.file("s.json")) << R"({"name": "mix", "cluster": {"nodes": [{"model": "hgx-h100", "count": 1},
    {"model": "dgx-a100", "count": 1}], "network": {"transport": "ib"}},
    "workload": {"kind": "jobs", "jobs": [
      {"name": "g", "workers": 2, "gpus_per_worker": 8, "model": "resnet50", "iterations": 1000},
      {"name": "one", "submit_s": 100, "workers": 1, "gpus_per_worker": 8, "model": "resnet50", "iterations": 1000}]},
    "schedulers": ["topology-aware"]})";
  const CliResult r = run_then_explain(dir, "g");
  CHECK_THAT(r.out, Catch::Contains("  throughput: 11,524.5 images/s (52.1% of the ideal placement's 22,103)\n"
                                    "  node types: hgx-h100, dgx-a100: every step waits for the slowest ranks, so it runs "
                                    "at the pace of the type it is slowest on; its ideal is the fastest type's\n"));
  const CliResult one = run_cli("explain '" + dir.file("out") + "' one");
  REQUIRE(one.exit_code == 0);
  CHECK_THAT(one.out, !Catch::Contains("node types:"));
}

TEST_CASE("cli::explain a mix's LLM job that two schedulers ran on different GPUs: each one's layout", "[cli][llm]") {
  // Llama 3 8B jobs measured on H100 (8 GPUs: TP 2) on one H100 and one 40 GB A100 node (TP 4
  // there): where the schedulers put a job on different types its layouts differ, and the first
  // line, the first scheduler's, is not the second's.
  TempDir dir;
  std::ofstream(dir.file("s.json")) << R"({"name": "two", "seed": 3, "cluster": {"nodes": [{"model": "hgx-h100", "count": 1},
    {"model": "dgx-a100", "count": 1}], "network": {"transport": "ib"}},
    "workload": {"kind": "synthetic", "jobs": 6, "arrival_rate_per_hour": 2, "size_mix": {"8": 1}, "pod_gpus": 8,
      "model_mix": {"llama3-8b": 1}, "reference_gpu": "h100"}, "schedulers": ["topology-aware", "default"]})";
  REQUIRE(run_cli("run '" + dir.file("s.json") + "' -o '" + dir.file("out") + "' -q --no-report").exit_code == 0);
  std::map<std::string, std::map<std::string, std::string>> layouts;  // job -> scheduler -> parallelism
  std::ifstream jobs(dir.file("out") + "/jobs.jsonl");
  for (std::string line; std::getline(jobs, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    layouts[j["name"]][j["scheduler"]] = j["parallelism"];
  }
  std::string moved, stayed;  // a job whose layouts differ, one whose do not
  for (const auto& [job, by] : layouts) {
    REQUIRE(by.size() == 2);
    std::string& pick = by.at("topology-aware") != by.at("default") ? moved : stayed;
    if (pick.empty()) pick = job;
  }
  REQUIRE(!moved.empty());
  REQUIRE(!stayed.empty());
  const auto words = [](const std::string& jsonl) {  // "tp4 pp1 dp2 cp1 ep1" as explain words it
    const std::regex sizes("tp(\\d+) pp(\\d+) dp(\\d+) cp(\\d+) ep(\\d+)");
    return std::regex_replace(jsonl, sizes, "tp $1 x pp $2 x dp $3 x cp $4, ep $5");
  };
  const std::string first = words(layouts[moved]["topology-aware"]), second = words(layouts[moved]["default"]);
  const CliResult r = run_cli("explain '" + dir.file("out") + "' " + moved);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("job " + moved + " (training, 1 pod x 8 GPUs, llama3-8b: " + first + "), "));
  const size_t second_part = r.out.find("\ndefault (seed 3)");
  REQUIRE(second_part != std::string::npos);
  CHECK_THAT(r.out.substr(0, second_part), !Catch::Contains("  layout: "));
  CHECK_THAT(r.out.substr(second_part),
             Catch::Contains("  layout: " + second + " (the one that fits the GPUs it ran on here; the first line's is " + first +
                             ")\n  step: "));
  // H100 takes TP 2, the A100 TP 4 (8 GPUs, dp 4 and 2).
  CHECK(std::set<std::string>{first, second} ==
        std::set<std::string>{"tp 2 x pp 1 x dp 4 x cp 1, ep 1", "tp 4 x pp 1 x dp 2 x cp 1, ep 1"});
  const CliResult same = run_cli("explain '" + dir.file("out") + "' " + stayed);
  REQUIRE(same.exit_code == 0);
  CHECK_THAT(same.out, !Catch::Contains("  layout: "));
}

TEST_CASE("cli::explain a job that selects GPU models says so, and why it waited", "[cli]") {
  // One HGX H100 and one DGX A100 node; `busy` takes the H100; `pinned` selects H100 (as its
  // product label) and waits for it while the A100 is idle.
  TempDir dir;
  std::ofstream(dir.file("s.json")) << R"({"name": "sel", "cluster": {"nodes": [{"model": "hgx-h100", "count": 1},
    {"model": "dgx-a100", "count": 1}], "network": {"transport": "ib"}},
    "workload": {"kind": "jobs", "jobs": [
      {"name": "busy", "workers": 1, "gpus_per_worker": 8, "model": "resnet50", "iterations": 1000, "gpu_models": "h100"},
      {"name": "pinned", "submit_s": 1, "workers": 1, "gpus_per_worker": 8, "model": "resnet50", "iterations": 1000,
       "gpu_models": ["NVIDIA-H100-80GB-HBM3", "h200"]}]},
    "schedulers": ["topology-aware"]})";
  const CliResult r = run_then_explain(dir, "pinned");
  CHECK_THAT(r.out, Catch::Contains("\nselects GPU models: h100, h200 (\"gpu_models\", a nvidia.com/gpu.product node selector): "
                                    "it runs on nodes of these only\n"));
  CHECK_THAT(r.out, Catch::Contains("GPUs: node 0: GPUs"));
  CHECK_THAT(topsim::test::read_text(dir.file("out") + "/jobs.jsonl"), Catch::Contains(R"("gpu_models":["h100","h200"])"));
}

TEST_CASE("cli::explain names the Kueue flavor a job was admitted on (read back from jobs.jsonl)", "[cli][kueue]") {
  // One HGX H100 and one DGX A100 node, flavors a100 then h100: `j` is admitted on a100 and runs
  // on the A100 node (node 1).
  TempDir dir;
  std::filesystem::create_directories(dir.path / "q");
  std::ofstream(dir.file("q/queues.yaml")) << topsim::test::a100_then_h100_queues_yaml();
  std::ofstream(dir.file("s.json")) << R"({"name": "fl", "cluster": {"nodes": [{"model": "hgx-h100", "count": 1},
    {"model": "dgx-a100", "count": 1}], "network": {"transport": "ib"}},
    "workload": {"kind": "jobs", "jobs": [
      {"name": "j", "workers": 1, "gpus_per_worker": 8, "model": "resnet50", "iterations": 1000, "queue": "team"}]},
    "tenancy": {"queues": "q"}, "schedulers": ["topology-aware"]})";
  const CliResult r = run_then_explain(dir, "j");
  CHECK_THAT(r.out, Catch::Contains("\n  Kueue flavor: a100 (its nvidia.com/gpu at its last admission; the flavor's nodeLabels "
                                    "are its pods' node selector)\n  GPUs: node 1: GPUs 0,1,2,3,4,5,6,7"));
  CHECK_THAT(topsim::test::read_text(dir.file("out") + "/jobs.jsonl"), Catch::Contains(R"("flavor":"a100")"));
}

TEST_CASE("cli::explain names who preempted a job and why, and whom a job preempted", "[cli][kueue]") {
  TempDir dir;
  write_reclaim_scenario(dir);
  const std::string reason =
      "the preemptor's ClusterQueue reclaiming quota the victim's borrowed in their cohort (Kueue's InCohortReclamation)";
  const CliResult victim = run_then_explain(dir, "b2");
  CHECK_THAT(victim.out,
             Catch::StartsWith("job b2 (training, 1 pod x 4 GPUs, resnet50 / pytorch), submitted at 0 s to queue b\n"));
  CHECK_THAT(victim.out, Catch::Contains("1 time by preemption"));
  // No checkpoints: its 100 s on 4 GPUs are lost.
  CHECK_THAT(victim.out, Catch::Contains("\n  preempted at 100 s by a1 (#2; queue a, priority class high): " + reason +
                                         "; it lost 0.1111 GPU-hours (the training since its last checkpoint, to redo, "
                                         "and the restart it caused)\n"));
  const CliResult preemptor = run_cli("explain '" + dir.file("out") + "' a1");
  REQUIRE(preemptor.exit_code == 0);
  CHECK_THAT(preemptor.out, Catch::Contains("submitted at 100 s to queue a, priority class high\n"));
  CHECK_THAT(preemptor.out, Catch::Contains("\n  to be admitted it preempted, at 100 s, b2 (#1; queue b): " + reason + "\n"));
  // b1 neither was preempted nor preempted.
  CHECK_THAT(run_cli("explain '" + dir.file("out") + "' b1").out, !Catch::Contains("preempt"));
  // results.json keeps the eviction as columns.
  const auto results = nlohmann::json::parse(topsim::test::read_text(dir.file("out") + "/results.json"));
  CHECK(results["schedulers"][0]["runs"][0]["preemptions"] ==
        nlohmann::json::parse(R"({"time_s": [100], "job": [1], "by": [2], "reason": ["InCohortReclamation"],
                                   "tenant": ["b"], "by_tenant": ["a"], "lost_gpu_s": [400]})"));
}

TEST_CASE("cli::explain a job evicted again and again: each eviction's cost, the rest summed per queue", "[cli][kueue]") {
  // The queues of write_reclaim_scenario. b fills the DGX-1 with four 2-GPU jobs of 2000 s, two on
  // a's quota; a's 2-GPU jobs of 180 s arrive every 200 s from 95 s and reclaim. b3, admitted last,
  // is evicted each time: first 95 s into its run (checkpoint at 60 s: 35 s to redo), then, each
  // time it is admitted again as an a job ends, 20 s into its 30 s restart.
  TempDir dir;
  write_reclaim_scenario(dir);
  std::string jobs;
  for (int i = 0; i < 4; ++i)
    jobs += fmt::format(R"({{"name": "b{}", "submit_s": 0, "workers": 1, "gpus_per_worker": 2, "model": "resnet50",
                             "duration_s": 2000, "queue": "b"}},)",
                        i);
  for (int i = 0; i < 12; ++i)
    jobs += fmt::format(R"({}{{"name": "a{}", "submit_s": {}, "workers": 1, "gpus_per_worker": 2, "model": "resnet50",
                             "duration_s": 180, "queue": "a"}})",
                        i == 0 ? "" : ",", i, 95 + 200 * i);
  std::ofstream(dir.file("s.json")) << R"({"name": "again", "cluster": {"nodes": [{"model": "dgx1-v100", "count": 1}]},
    "workload": {"kind": "jobs", "jobs": [)" +
                                           jobs + R"(]},
    "tenancy": {"queues": "q", "checkpoint_every_s": 60, "restart_overhead_s": 30}, "schedulers": ["topology-aware"]})";
  const CliResult r = run_then_explain(dir, "b3");
  // Restarts as spent: 9 cut short at 20 s, the last whole.
  CHECK_THAT(r.out, Catch::Contains("10 times by preemption; training redone 35 s, restarting 210 s,"));
  // Each eviction costs the training to redo and the restart it caused, on 2 GPUs: the first
  // 35 s + 20 s, the next ones the 20 s of their restarts, the last one its whole 30 s.
  CHECK_THAT(r.out, Catch::Contains("(Kueue's InCohortReclamation); it lost 0.0306 GPU-hours (the training since its last "
                                    "checkpoint, to redo, and the restart it caused)\n"));
  CHECK_THAT(r.out, Catch::Contains("\n  preempted at 895 s by a4 (#8; queue a): "));
  CHECK_THAT(r.out, Catch::Contains("it lost 0.0111 GPU-hours"));
  // The 5 not listed: 4 x 20 s + 30 s, of 2 GPUs. With the listed 55 + 4 x 20 s: 2 x (35 + 210) s.
  CHECK_THAT(r.out, Catch::EndsWith("\n  ... and 5 more preemptions of it: 5 by jobs of queue a (0.0611 GPU-hours lost) "
                                    "(results.json's preemptions lists them)\n"));
}

TEST_CASE("cli::explain a job evicted after its admission, before it ran: it lost no GPU time", "[cli][kueue]") {
  // ClusterQueues a and b of 8 GPUs each on one DGX-1 (8 GPUs): b2 is admitted on a's quota while
  // b1 holds the node, so it waits for GPUs; a1 reclaims the quota before b2 ever runs. Admitted
  // again within b's quota when b1 ends, b2 runs its 1000 s from 1000 s, with no restart: it has
  // nothing to restore.
  TempDir dir;
  write_lab_queues(dir, 8);
  std::ofstream(dir.file("s.json")) << R"({"name": "unplaced", "cluster": {"nodes": [{"model": "dgx1-v100", "count": 1}]},
    "workload": {"kind": "jobs", "jobs": [
      {"name": "b1", "submit_s": 0, "workers": 1, "gpus_per_worker": 8, "model": "resnet50", "duration_s": 1000, "queue": "b"},
      {"name": "b2", "submit_s": 10, "workers": 1, "gpus_per_worker": 8, "model": "resnet50", "duration_s": 1000, "queue": "b"},
      {"name": "a1", "submit_s": 100, "workers": 1, "gpus_per_worker": 8, "model": "resnet50", "duration_s": 1000,
       "queue": "a"}]},
    "tenancy": {"queues": "q", "checkpoint_every_s": 60, "restart_overhead_s": 30}, "schedulers": ["topology-aware"]})";
  const CliResult r = run_then_explain(dir, "b2");
  CHECK_THAT(r.out, Catch::Contains("finished, waited 990 s, ran 1,000 s\n"));
  CHECK_THAT(r.out, Catch::Contains("\n  stopped: 0 times by node failures, 1 time by preemption (before it first ran); "
                                    "training redone 0 s, restarting 0 s,"));
  CHECK_THAT(r.out,
             Catch::EndsWith("\n  preempted at 100 s by a1 (#2; queue a): the preemptor's ClusterQueue reclaiming quota "
                             "the victim's borrowed in their cohort (Kueue's InCohortReclamation); it lost no GPU time\n"));
  const auto results = nlohmann::json::parse(topsim::test::read_text(dir.file("out") + "/results.json"));
  CHECK(results["schedulers"][0]["runs"][0]["preemptions"]["lost_gpu_s"] == nlohmann::json::parse("[0]"));
}

TEST_CASE("reports: who preempted whom, a row per pair of tenants and reason", "[cli][kueue][reports]") {
  TempDir dir;
  write_reclaim_scenario(dir);
  REQUIRE(run_cli("run '" + dir.file("s.json") + "' -o '" + dir.file("out") + "' -q").exit_code == 0);
  const std::string md = topsim::test::read_text(dir.file("out/summary.md"));
  CHECK_THAT(
      md, Catch::Contains("### Preemptions between tenants\n\n| scheduler | evicted from | for a job of | reason | evictions | "
                          "share of its evictions | GPU-h lost |"));
  CHECK_THAT(md, Catch::Contains("| topology-aware | b | a | InCohortReclamation | 1.0 | 100.0% | 0.1 |"));
  CHECK_THAT(topsim::test::read_text(dir.file("out/report.html")),
             Catch::Contains("<h2>Preemptions between tenants</h2>\n<table><thead><tr><th>scheduler</th><th class=\"name\">"
                             "evicted from</th><th class=\"name\">for a job of</th><th class=\"name\">reason</th>"
                             "<th>evictions</th>"));
  // Read back from results.json, the report says the same.
  REQUIRE(run_cli("report '" + dir.file("out") + "' -o '" + dir.file("again") + "'").exit_code == 0);
  CHECK_THAT(topsim::test::read_text(dir.file("again/summary.md")),
             Catch::Contains("| topology-aware | b | a | InCohortReclamation | 1.0 | 100.0% | 0.1 |"));
}

TEST_CASE("cli::explain a job that failures stopped, and a job over many nodes in one line", "[cli][failures]") {
  TempDir dir;
  // 20 DGX-1; a 20-node job, node 0 down from 250 s to 750 s, checkpoints every 100 s, 30 s
  // restart: it waits for node 0 (no other node is free), redoes 50 s and restarts.
  std::ofstream(dir.file("incidents.csv")) << "node,start_s,duration_s,cause\nnode-0,250,500,gpu\n";
  std::ofstream(dir.file("s.json")) << R"({"name": "f", "cluster": {"nodes": [{"model": "dgx1-v100", "count": 20}]},
    "workload": {"kind": "jobs", "jobs": [
      {"name": "wide", "submit_s": 0, "workers": 20, "gpus_per_worker": 8, "model": "resnet50", "duration_s": 1000}]},
    "schedulers": ["topology-aware"], "checkpoints": {"every_s": 100, "restart_s": 30},
    "failures": {"rates": "none", "trace": "incidents.csv"}})";
  const CliResult r = run_then_explain(dir, "wide");
  CHECK_THAT(r.out, Catch::Contains("  GPUs: 20 nodes (nodes 0-19), 8 GPUs each\n"));
  CHECK_THAT(r.out, Catch::Contains("  stopped: 1 time by node failures, 0 times by preemption; training redone 50 s, "
                                    "restarting 30 s, writing checkpoints 0 s, waiting to restart 500 s; effective "
                                    "training time 63.3% of 1,580 s\n  node 0 failed under it at 250 s (gpu, down 500 s): it "
                                    "stopped, to be placed again\n"));
}

TEST_CASE("cli::explain lists a job's first five node failures and counts the rest by outcome", "[cli][failures]") {
  // One DGX-1, down for 10 s every 100 s from 100 s to 700 s, under a 1000 s job: each failure
  // stops it and it waits for the repair.
  TempDir dir;
  std::string incidents = "node,start_s,duration_s,cause\n";
  for (int t = 100; t <= 700; t += 100) incidents += "node-0," + std::to_string(t) + ",10,host\n";
  std::ofstream(dir.file("incidents.csv")) << incidents;
  std::ofstream(dir.file("s.json")) << R"({"name": "f", "cluster": {"nodes": [{"model": "dgx1-v100", "count": 1}]},
    "workload": {"kind": "jobs", "jobs": [
      {"name": "j", "submit_s": 0, "workers": 1, "gpus_per_worker": 8, "model": "resnet50", "duration_s": 1000}]},
    "schedulers": ["topology-aware"], "failures": {"rates": "none", "trace": "incidents.csv"}})";
  const CliResult r = run_then_explain(dir, "j");
  CHECK_THAT(r.out, Catch::Contains("  stopped: 7 times by node failures"));
  CHECK_THAT(r.out, Catch::Contains("\n  node 0 failed under it at 100 s (host, down 10 s): it stopped, to be placed again\n"));
  CHECK_THAT(r.out, Catch::Contains("\n  node 0 failed under it at 500 s (host, down 10 s): it stopped, to be placed again\n"));
  CHECK_THAT(r.out, !Catch::Contains("at 600 s"));
  CHECK_THAT(r.out, Catch::EndsWith("\n  ... and 2 more node failures under it: 2 stopping it (results.json's node_failures "
                                    "lists them)\n"));
}

TEST_CASE("cli::explain a job a hot spare took in, and that the spare is in another NVLink domain", "[cli][failures]") {
  // GB200 trays in NVLink domains of 4, two spares for the cluster (trays 6 and 7). A 2-tray job
  // listed first takes trays 2-3, so the TP-8 job runs on trays 0-1; tray 0 fails at 250 s and
  // tray 6, in domain 1, takes its place (tests/scenario/test_failure_runs.cpp works the rates).
  TempDir dir;
  std::ofstream(dir.file("incidents.csv")) << "node,start_s,duration_s,cause\nnode-0,250,500,network\n";
  std::ofstream(dir.file("s.json")) << R"({"name": "f", "cluster": {"nodes": [{"model": "gb200-nvl72-tray", "count": 8}],
      "network": {"transport": "ib", "levels": [{"name": "nvl", "fanout": 4, "links": "nvlink"}]}},
    "workload": {"kind": "jobs", "jobs": [
      {"name": "b", "submit_s": 0, "workers": 2, "gpus_per_worker": 4, "model": "resnet50", "duration_s": 100000},
      {"name": "g", "submit_s": 0, "workers": 2, "gpus_per_worker": 4, "iterations": 400,
       "llm": {"model": "llama3-8b", "tp": 8, "global_batch": 32}}]},
    "schedulers": ["topology-aware", "default"], "checkpoints": {"every_s": 100, "restart_s": 30},
    "failures": {"rates": "none", "trace": "incidents.csv", "spares": {"nodes": 2}}})";
  const CliResult r = run_then_explain(dir, "g");
  CHECK_THAT(r.out, Catch::Contains("  node 0 failed under it at 250 s (network, down 500 s): it restarted at once with spare "
                                    "node 6 in its place, in another NVLink domain (nvl 1; the failed node's is nvl 0): its "
                                    "traffic between the two domains crosses the NICs, where it went over NVLink before\n"));
  // b ran on trays 2-3 under topology-aware, off the failed tray. Under default scheduling it is
  // on tray 0 and the spare takes it in; its pods talk over sockets (TCP), never over NVLink, so
  // only the domain is named.
  const std::string b = run_cli("explain '" + dir.file("out") + "' b").out;
  const size_t by_default = b.find("default (seed 1)");
  REQUIRE(by_default != std::string::npos);
  CHECK_THAT(b.substr(0, by_default), !Catch::Contains("failed under it"));
  CHECK_THAT(b.substr(by_default), Catch::EndsWith("node 0 failed under it at 250 s (network, down 500 s): it restarted at "
                                                   "once with spare node 6 in its place, in another NVLink domain (nvl 1; "
                                                   "the failed node's is nvl 0)\n"));
  // results.json names the job the failure hit (its id) and what became of it.
  const auto results = nlohmann::json::parse(topsim::test::read_text(dir.file("out") + "/results.json"));
  for (const auto& [scheduler, id] : {std::pair{0, 1}, std::pair{1, 0}})
    CHECK(results["schedulers"][scheduler]["runs"][0]["node_failures"]["jobs"] ==
          nlohmann::json::parse(R"([[{"id": )" + std::to_string(id) + R"(, "then": "spare"}]])"));
}

TEST_CASE("cli::explain names the slice or partition annotation that lays a job larger than an NVL72 rack out as its ideal",
          "[cli][fabric]") {
  // GPT-3 175B on 32 of 54 GB200 trays: filled racks (18 + 14) run at 82% of the ideal, which is
  // two segments of 16 trays (tests/scenario/test_fabric_contention.cpp).
  TempDir dir;
  const std::string llm =
      R"("llm": {"model": "gpt3-175b", "tp": 4, "pp": 4, "vpp": 12, "sequence": 2048, "global_batch": 256, "micro_batch": 2,
      "recompute": "none", "sequence_parallel": true, "precision": "fp8", "tp_overlap": true})";
  auto write = [&](const std::string& annotations) {
    std::ofstream(dir.file("s.json"))
        << R"({"name": "racks", "seed": 1, "cluster": {"nodes": [{"model": "gb200-nvl72-tray", "count": 54}],
      "network": {"transport": "ib", "levels": [{"name": "nvl72", "fanout": 18, "links": "nvlink"}]}},
      "workload": {"kind": "jobs", "jobs": [{"name": "gpt3", "submit_s": 0, "workers": 32, "gpus_per_worker": 4,
      "iterations": 20, )"
        << llm << R"(, "annotations": {)" << annotations << R"(}}]},
      "schedulers": ["topology-aware", "kueue-tas", "volcano-topology"]})";
    return run_then_explain(dir, "gpt3").out;
  };
  const std::string plain = write("");
  const std::string hint =
      "  hint: its ideal is the faster of two layouts on the nvl72 domains, whole domains in order or segments of 16 nodes per "
      "domain; ";
  CHECK_THAT(
      plain,
      Catch::Contains(hint + "kueue-tas places it in such segments when the job carries "
                             "kueue.x-k8s.io/podset-slice-required-topology: nvl72 and kueue.x-k8s.io/podset-slice-size: 16\n"));
  CHECK_THAT(plain,
             Catch::Contains(hint + "volcano-topology places it in such segments when the job carries volcano.sh/partition-size: "
                                    "16, volcano.sh/partition-network-topology-mode: hard and "
                                    "volcano.sh/partition-highest-tier-allowed: 1 (hard partitions without a tier are not "
                                    "held to one)\n"));
  const auto occurrences = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  CHECK(occurrences(plain, "hint:") == 2);  // topology-aware reaches its ideal: no hint
  // With the slices asked, both reach the ideal and no hint is given.
  const std::string sliced = write(
      R"("kueue.x-k8s.io/podset-slice-required-topology": "nvl72", "kueue.x-k8s.io/podset-slice-size": "16",
      "volcano.sh/partition-network-topology-mode": "hard", "volcano.sh/partition-size": "16",
      "volcano.sh/partition-highest-tier-allowed": "1")");
  CHECK(sliced.find("hint:") == std::string::npos);
  const auto ideal = [&](const std::string& text) { return occurrences(text, "(100.0% of the ideal placement's 223,684.8)"); };
  CHECK(ideal(sliced) == 3);
  // Hard partitions without a tier: Volcano holds them to none, and the job runs as without them.
  const std::string untiered =
      write(R"("volcano.sh/partition-network-topology-mode": "hard", "volcano.sh/partition-size": "16")");
  CHECK(ideal(untiered) == 1);
  CHECK_THAT(untiered, Catch::Contains("fused attention, TP overlap on\nasks: volcano.sh/partition-network-topology-mode: hard, "
                                       "volcano.sh/partition-size: 16\ntopology-aware (seed 1)"));
  // It asked for partitions: Kueue's hint stays, Volcano's (which the note replaces) does not.
  CHECK(occurrences(untiered, "hint:") == 1);
  CHECK(occurrences(untiered, "kueue-tas places it in such segments") == 1);
  CHECK(occurrences(untiered,
                    "  note: volcano.sh/partition-network-topology-mode: hard without a highest tier "
                    "(volcano.sh/partition-highest-tier-allowed or volcano.sh/partition-highest-tier-name): Volcano holds "
                    "the partitions to no tier\n") == 1);
  CHECK(occurrences(sliced, "note:") == 0);
}

TEST_CASE("cli::explain an unknown job of a run with many: the first names, the count, no endless line", "[cli]") {
  TempDir dir;
  std::ofstream(dir.file("s.json")) << R"({"name": "many", "cluster": {"nodes": [{"model": "dgx-a100", "count": 1}]},
    "workload": {"kind": "synthetic", "jobs": 80, "size_mix": {"1": 1}}, "schedulers": ["default"]})";
  REQUIRE(run_cli("run '" + dir.file("s.json") + "' -o '" + dir.file("out") + "' -q --no-report").exit_code == 0);
  const CliResult r = run_cli("explain '" + dir.file("out") + "' nosuch");
  // job-0 .. job-38 are the 300 characters unknown_name lists.
  check_bad_input(r, "unknown job 'nosuch' (known: job-0, job-1, job-2, ");
  CHECK_THAT(r.err, Catch::Contains(", job-38 and 41 more); jobs.jsonl names them all"));
  CHECK(r.err.find("job-39") == std::string::npos);
  check_bad_input(run_cli("explain '" + dir.file("out") + "' job-79x"), "unknown job 'job-79x' (did you mean 'job-79'?)");
}

TEST_CASE("cli::explain a pod an Alibaba replay skipped: why it was not replayed, not an unknown job", "[cli][trace]") {
  TempDir dir;
  std::ofstream(dir.file("pods.csv"))
      << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
      << "whole,1000,1024,1,1000,,LS,Running,0,700,0\n"
      << "share,1000,1024,1,470,,LS,Running,0,50,10\n"
      << "cpu,1000,1024,0,0,,BE,Running,0,50,\n"
      << "untimed,1000,1024,2,1000,,LS,Running,,,\n";
  std::ofstream(dir.file("s.json")) << R"({"name": "ali", "cluster": {"nodes": [{"model": "dgx-a100", "count": 1}]},
    "workload": {"kind": "alibaba", "path": "pods.csv"}, "schedulers": ["default"]})";
  REQUIRE(run_cli("run '" + dir.file("s.json") + "' -o '" + dir.file("out") + "' -q --no-report").exit_code == 0);
  const std::string out = dir.file("out");
  // Expected: each skipped pod's own reason, read back from the saved results; exit 0.
  const std::string workload = "(pods.csv (1 whole-GPU pods; skipped: 1 shared-GPU, 1 CPU-only, 1 without times))";
  const CliResult share = run_cli("explain '" + out + "' share");
  REQUIRE(share.exit_code == 0);
  CHECK(share.out ==
        "share was not replayed: a shared-GPU pod (gpu_milli below 1000): shares are replayed only when the workload "
        "gives share_card_gib.\nThe workload " +
            workload + " skipped it, so no scheduler saw it.\n");
  const CliResult cpu = run_cli("explain '" + out + "' cpu");
  REQUIRE(cpu.exit_code == 0);
  CHECK_THAT(cpu.out, Catch::StartsWith("cpu was not replayed: a CPU-only pod (num_gpu 0)"));
  const CliResult untimed = run_cli("explain '" + out + "' untimed");
  REQUIRE(untimed.exit_code == 0);
  CHECK_THAT(untimed.out, Catch::StartsWith("untimed was not replayed: a pod without creation and deletion times"));
  // The replayed pod is explained as a job; a name the trace never had is still unknown.
  CHECK_THAT(run_cli("explain '" + out + "' whole").out, Catch::StartsWith("job whole (training, 1 pod x 1 GPU"));
  check_bad_input(run_cli("explain '" + out + "' wholes"), "unknown job 'wholes' (did you mean 'whole'?)");
  // A skipped name that is not a string is refused at its pointer (without the set record, which
  // would refuse the edited file first).
  std::string text;
  {
    std::ifstream in(dir.file("out/results.json"));
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const size_t at = text.find("\"share\"");
  REQUIRE(at != std::string::npos);
  text.replace(at, 7, "5");
  std::ofstream(dir.file("out/results.json")) << text;
  std::filesystem::remove(dir.file("out/.topsim-set.json"));
  check_bad_input(run_cli("explain '" + out + "' share"), "results.json: /scenario/skipped/0/names/0: must be a string, got 5");
}

TEST_CASE("cli::explain in a fill experiment: a name several draws share, and a job asked by '#id'", "[cli][fill]") {
  // Two pods of a trace drawn with replacement onto one node of 2 T4s up to 130% of its GPUs:
  // each name names several jobs, and the draws that found no room failed.
  TempDir dir;
  std::ofstream(dir.file("nodes.csv")) << "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,T4\n";
  std::ofstream(dir.file("pods.csv"))
      << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
         "pa,1000,1024,1,1000,,LS,Running,0,30,0\npb,1000,1024,1,600,,LS,Running,0,30,0\n";
  std::ofstream(dir.file("s.json")) << R"({"mode": "fill", "seed": 3, "cluster": {"node_list": "nodes.csv"},
    "workload": {"kind": "alibaba-pods", "path": "pods.csv"}, "schedulers": ["binpack"]})";
  REQUIRE(run_cli("run '" + dir.file("s.json") + "' -o '" + dir.file("out") + "' -q --no-report --jobs").exit_code == 0);
  // The first failed draw, from jobs.jsonl.
  std::ifstream jobs(dir.file("out") + "/jobs.jsonl");
  std::string line, failed_id, failed_name;
  while (failed_id.empty() && std::getline(jobs, line)) {
    std::smatch m;
    if (std::regex_search(line, m, std::regex(R"re("id":(\d+),"name":"(p[ab])".*"state":"failed")re"))) {
      failed_id = m[1];
      failed_name = m[2];
    }
  }
  REQUIRE_FALSE(failed_id.empty());
  SECTION("by name: the first draw, and the ids of every draw of that name") {
    const CliResult r = run_cli("explain '" + dir.file("out") + "' " + failed_name);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Matches("(.|\n)*\\(" + failed_name +
                                     " names [0-9]+ jobs of this run, ids [0-9, ]+; this is id [0-9]+: "
                                     "`topsim explain DIR '#ID'` explains another\\)\n(.|\n)*"));
    CHECK_THAT(r.out, Catch::Contains(failed_id));
  }
  SECTION("by '#id': that draw, failed, with what the node lacked") {
    const CliResult r = run_cli("explain '" + dir.file("out") + "' '#" + failed_id + "'");
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out,
               Catch::StartsWith("job " + failed_name + " (trace-pod)") && Catch::Contains("binpack (seed 3): failed") &&
                   Catch::Contains("  why: no node fitted it on arrival: the 1 node serving its pod has no room for it ("));
  }
  SECTION("an id no job has") {
    check_bad_input(run_cli("explain '" + dir.file("out") + "' '#100000'"), "no job has id 100000 (ids run from 0 to ");
  }
}

TEST_CASE("cli::explain and jobs.jsonl say when a gang's pods were on the host network", "[cli][explain]") {
  // Two DGX A100 and a 2 x 8-GPU gang: topology-aware runs it on host networking (NCCL sees two
  // nodes, RDMA between them), default on the pod network (TCP sockets between its pods).
  TempDir dir;
  std::ofstream(dir.file("s.json")) << R"({"name": "hostnet",
    "cluster": {"nodes": [{"model": "dgx-a100", "count": 2}], "network": {"transport": "ib"}},
    "workload": {"kind": "jobs", "jobs": [{"name": "g", "workers": 2, "gpus_per_worker": 8, "model": "resnet50",
                                            "iterations": 100}]},
    "schedulers": ["topology-aware", "default"]})";
  const CliResult r = run_then_explain(dir, "g");
  CHECK_THAT(r.out,
             Catch::Contains("\n  ring: rdma, 202.53 GB/s bus bandwidth; its pods on the host network (NCCL sees its nodes, "
                             "not its pods)\n"));
  CHECK_THAT(r.out, Catch::Contains("\n  ring: tcp, "));
  CHECK(r.out.find("host network") == r.out.rfind("host network"));  // default's pods were not
  const std::string jobs = topsim::test::read_text(dir.file("out") + "/jobs.jsonl");
  const size_t second = jobs.find('\n');
  REQUIRE(second != std::string::npos);
  CHECK_THAT(jobs.substr(0, second),
             Catch::Contains(R"("scheduler":"topology-aware")") && Catch::Contains(R"("host_network":true)"));
  CHECK_THAT(jobs.substr(second), Catch::Contains(R"("scheduler":"default")") && !Catch::Contains("host_network"));
}
