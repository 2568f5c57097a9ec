// The queue and priority class of imported jobs: Kubernetes labels and priorityClassName, sacct's
// Account and QOS, Helios' vc; carried into the job list `topsim import jobs` writes.
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "formats/jobs/imported_jobs.h"
#include "formats/jobs/job_list_json.h"
#include "formats/jobs/kube_manifests.h"
#include "formats/jobs/sacct.h"
#include "tests/sim/workload/workload_fixture.h"

using namespace topsim;
using namespace topsim::test;

namespace {

Expected<ImportedJobs> manifests(const std::string& yaml) { return parse_kube_manifests({{"jobs.yaml", yaml}}); }

nlohmann::json entries(const ImportedJobs& imported) { return nlohmann::json::parse(render_job_list(imported)).at("jobs"); }

// A one-GPU Pod named `name` with `labels` (a YAML flow map) and pod spec `extra` keys.
std::string pod(const std::string& name, const std::string& labels, const std::string& extra = "") {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", labels: " + labels + "}\nspec: {" + extra +
         "containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}\n";
}

const char* kPyTorchJob = R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: llm
  labels: {kai.scheduler/queue: research}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template: {spec: {priorityClassName: train, containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]}}
    Worker:
      replicas: 1
      template: {spec: {priorityClassName: other, containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]}}
)";

std::string sacct_error(const std::string& text) {
  std::istringstream in(text);
  const auto r = read_sacct(in, "sacct.txt");
  if (!r) return r.error().message;
  const auto w = imported_workload(*r, "");
  return w ? "" : w.error().message;
}

}  // namespace

TEST_CASE("formats::kube_manifests: Kueue and KAI labels name the queue and the priority class",
          "[formats][kubernetes][tenants]") {
  SECTION("each queue label; the Kueue class label; the first pod template's priorityClassName") {
    const auto r = manifests(pod("a", "{kueue.x-k8s.io/queue-name: team-a, kueue.x-k8s.io/priority-class: high}") + "---\n" +
                             pod("b", "{runai/queue: team-b}", "priorityClassName: low, ") + "---\n" + kPyTorchJob + "---\n" +
                             pod("d", "{app: none}"));
    REQUIRE(r.ok());
    const auto jobs = entries(*r);
    CHECK(jobs[0].at("queue") == "team-a");
    CHECK(jobs[0].at("priority_class") == "high");
    CHECK(jobs[1].at("queue") == "team-b");
    CHECK(jobs[1].at("priority_class") == "low");
    CHECK(jobs[2].at("queue") == "research");
    CHECK(jobs[2].at("priority_class") == "train");  // Master, the first replica type with one
    CHECK_FALSE(jobs[3].contains("queue"));
    CHECK_FALSE(jobs[3].contains("priority_class"));
    const auto w = imported_workload(*r, "");
    REQUIRE(w.ok());
    CHECK(tenants_of(*w) == "team-a high\nteam-b low\nresearch train\n- -\n");
  }
  SECTION("the Kueue class label wins over the pod's priorityClassName, as Kueue documents") {
    const auto r = manifests(pod("a", "{kueue.x-k8s.io/priority-class: high}", "priorityClassName: low, "));
    REQUIRE(r.ok());
    CHECK(entries(*r)[0].at("priority_class") == "high");
  }
  SECTION("what topsim import jobs writes reads back to the same queues and classes") {
    const auto r = manifests(pod("a", "{kueue.x-k8s.io/queue-name: team-a}", "priorityClassName: low, ") + "---\n" +
                             pod("b", "{kai.scheduler/queue: team-b}"));
    REQUIRE(r.ok());
    const auto again = parse_job_list(nlohmann::json::parse(render_job_list(*r)).at("jobs").dump(), "jobs.json");
    REQUIRE(again.ok());
    CHECK(tenants_of(*again) == tenants_of(imported_workload(*r, "").value()));
    CHECK(tenants_of(*again) == "team-a low\nteam-b -\n");
  }
}

TEST_CASE("formats::kube_manifests: queue labels that disagree are refused, naming both", "[formats][kubernetes][tenants]") {
  CHECK(manifests(pod("a", "{kueue.x-k8s.io/queue-name: x, kai.scheduler/queue: y}")).error().message ==
        "jobs.yaml document 1: metadata.labels: kueue.x-k8s.io/queue-name 'x' and kai.scheduler/queue 'y' name different queues");
  CHECK(manifests(pod("a", "{kai.scheduler/queue: x, runai/queue: y}")).error().message ==
        "jobs.yaml document 1: metadata.labels: kai.scheduler/queue 'x' and runai/queue 'y' name different queues");
  CHECK(manifests(pod("a", "{kai.scheduler/queue: [x]}")).error().message ==
        "jobs.yaml document 1: metadata.labels.kai.scheduler/queue: must be a string");
  CHECK(manifests(pod("a", "{}", "priorityClassName: {a: b}, ")).error().message ==
        "jobs.yaml document 1: spec.priorityClassName: must be a string");
}

TEST_CASE("formats::sacct: Account is the queue and QOS the priority class, when the columns are there",
          "[formats][sacct][tenants]") {
  const std::string row = "|2024-05-01T10:00:00|2024-05-01T10:00:00|2024-05-01T10:10:00|00:10:00|gres/gpu=1|1|COMPLETED";
  SECTION("optional columns, read by name; an empty field names none") {
    std::istringstream in("JobID|Submit|Start|End|Elapsed|AllocTRES|NNodes|State|Account|QOS\n1" + row + "|vision|high\n2" + row +
                          "||normal\n");
    const auto r = read_sacct(in, "sacct.txt");
    REQUIRE(r.ok());
    const auto w = imported_workload(*r, "");
    REQUIRE(w.ok());
    CHECK(tenants_of(*w) == "vision high\n- normal\n");
  }
  SECTION("without them (the documented --format before): no job names a queue") {
    std::istringstream in("JobID|Submit|Start|End|Elapsed|AllocTRES|NNodes|State\n1" + row + "\n");
    const auto w = imported_workload(read_sacct(in, "sacct.txt").value(), "");
    REQUIRE(w.ok());
    CHECK(w->queue_names.empty());
    CHECK(w->priority_class_names.empty());
  }
  SECTION("more than 254 QOS values names the line of the first too many") {
    std::string text = "JobID|Submit|Start|End|Elapsed|AllocTRES|NNodes|State|QOS\n";
    for (int i = 0; i < 255; ++i) text += std::to_string(i) + row + "|q" + std::to_string(i) + "\n";
    CHECK(sacct_error(text) ==
          "sacct.txt:256 (job 254): /priority_class: more than 254 distinct priority classes in one workload");
  }
}

TEST_CASE("formats::helios: the vc column is the queue (the queue column is a time)", "[formats][helios][tenants]") {
  std::istringstream in(
      "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n"
      "1,u,vcJkd,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-10 04:55:09,36848,0\n"
      "2,u,vchbv,4,16,1,FAILED,2020-06-09 18:41:27,2020-06-09 18:41:27,2020-06-09 18:45:36,249,0\n"
      "3,u,vcJkd,1,1,1,COMPLETED,2020-06-09 18:41:28,2020-06-09 18:41:28,2020-06-17 14:15:21,675233,0\n");
  const auto r = read_helios(in, "cluster_log.csv");
  REQUIRE(r.ok());
  const auto w = imported_workload(*r, "");
  REQUIRE(w.ok());
  CHECK(w->queue_names == std::vector<std::string>{"vcJkd", "vchbv"});
  CHECK(tenants_of(*w) == "vcJkd -\nvchbv -\nvcJkd -\n");
}
