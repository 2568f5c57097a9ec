// A job list entry's queue and priority class: the "queue" and "priority_class" fields and the
// Kueue / KAI labels, with conflicts refused.
#include <catch2/catch.hpp>

#include "formats/jobs/job_list_json.h"
#include "tests/sim/workload/workload_fixture.h"

using namespace topsim;
using namespace topsim::test;

namespace {

// A job list of `entries` (JSON objects without the model and duration, which are added).
Expected<Workload> job_list(const std::vector<std::string>& entries) {
  std::string text = "[";
  for (const std::string& entry : entries)
    text += (text.size() > 1 ? ", " : "") +
            ("{\"model\": \"resnet50\", \"duration_s\": 60" + (entry.empty() ? "" : ", " + entry)) + "}";
  return parse_job_list(text + "]", "s.json", "/workload/jobs");
}

std::string error_of(const std::vector<std::string>& entries) {
  const auto w = job_list(entries);
  return w.ok() ? "" : w.error().message;
}

}  // namespace

TEST_CASE("formats::job_list entries name their queue and priority class", "[formats][workload][tenants]") {
  SECTION("fields and labels; names in the order the sorted jobs name them; none when absent") {
    const auto w =
        job_list({R"("submit_s": 9, "queue": "team-b", "priority_class": "low")",
                  R"("submit_s": 1, "labels": {"kueue.x-k8s.io/queue-name": "team-a", "app": "x"})",
                  R"("submit_s": 2, "labels": {"kai.scheduler/queue": "team-b", "kueue.x-k8s.io/priority-class": "high"})",
                  R"("submit_s": 3, "labels": {"runai/queue": "team-c", "priorityClassName": "train"})", ""});
    REQUIRE(w.ok());
    CHECK(w->queue_names == std::vector<std::string>{"team-a", "team-b", "team-c"});
    CHECK(w->priority_class_names == std::vector<std::string>{"high", "train", "low"});
    CHECK(tenants_of(*w) == "- -\nteam-a -\nteam-b high\nteam-c train\nteam-b low\n");
  }
  SECTION("the same name in a field and a label, and in two queue labels, is no conflict; replicas share it") {
    const auto w =
        job_list({R"("queue": "q", "count": 3, "labels": {"kueue.x-k8s.io/queue-name": "q", "kai.scheduler/queue": "q"})"});
    REQUIRE(w.ok());
    CHECK(tenants_of(*w) == "q -\nq -\nq -\n");
  }
  SECTION("the Kueue priority class label wins over KAI's priorityClassName label") {
    const auto w = job_list({R"("labels": {"priorityClassName": "train", "kueue.x-k8s.io/priority-class": "high"})"});
    REQUIRE(w.ok());
    CHECK(w->priority_class_names == std::vector<std::string>{"high"});
  }
}

TEST_CASE("formats::job_list refuses tenants it cannot read, naming the entry and both sides", "[formats][workload][tenants]") {
  SECTION("a queue field against a queue label") {
    CHECK(error_of({"", R"("queue": "a", "labels": {"kueue.x-k8s.io/queue-name": "b"})"}) ==
          "s.json: /workload/jobs/1/queue: 'a' but the label kueue.x-k8s.io/queue-name names the queue 'b': give one, or "
          "the same in both");
    CHECK(error_of({R"("priority_class": "low", "labels": {"kueue.x-k8s.io/priority-class": "high"})"}) ==
          "s.json: /workload/jobs/0/priority_class: 'low' but the label kueue.x-k8s.io/priority-class names the priority "
          "class 'high': give one, or the same in both");
  }
  SECTION("Kueue and KAI queue labels naming different queues") {
    CHECK(error_of({R"("labels": {"kueue.x-k8s.io/queue-name": "a", "kai.scheduler/queue": "b"})"}) ==
          "s.json: /workload/jobs/0/labels: kueue.x-k8s.io/queue-name 'a' and kai.scheduler/queue 'b' name different queues");
    CHECK(error_of({R"("labels": {"kai.scheduler/queue": "a", "runai/queue": "b"})"}) ==
          "s.json: /workload/jobs/0/labels: kai.scheduler/queue 'a' and runai/queue 'b' name different queues");
  }
  SECTION("types and empty names") {
    CHECK(error_of({R"("queue": 7)"}) == "s.json: /workload/jobs/0/queue: must be a string, got 7");
    CHECK(error_of({R"("queue": "")"}) == "s.json: /workload/jobs/0/queue: must not be empty");
    CHECK(error_of({R"("labels": ["a"])"}) ==
          "s.json: /workload/jobs/0/labels: must be an object of label name -> value, got an array");
    CHECK(error_of({R"("labels": {"kai.scheduler/queue": 1})"}) ==
          "s.json: /workload/jobs/0/labels/kai.scheduler/queue: must be a string, got 1");
  }
  SECTION("more than 254 distinct priority classes, at the entry naming the first too many") {
    std::vector<std::string> entries;
    for (int i = 0; i < 255; ++i) entries.push_back("\"priority_class\": \"c" + std::to_string(i) + "\"");
    CHECK(error_of(entries) ==
          "s.json: /workload/jobs/254/priority_class: more than 254 distinct priority classes in one workload");
    entries.pop_back();
    CHECK(job_list(entries).value().priority_class_names.size() == 254);
  }
  SECTION("more than 65,534 distinct queues, named at the label it came from") {
    std::string text = "[";
    for (int i = 0; i <= 65'534; ++i)
      text += std::string(i ? "," : "") + R"({"model": "resnet50", "duration_s": 1, "labels": {"kai.scheduler/queue": "q)" +
              std::to_string(i) + "\"}}";
    CHECK(parse_job_list(text + "]", "s.json", "/jobs").error().message ==
          "s.json: /jobs/65534/labels/kai.scheduler/queue: more than 65,534 distinct queues in one workload");
  }
}
