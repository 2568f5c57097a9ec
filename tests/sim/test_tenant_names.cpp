// The queue and priority class names of a workload: indices while reading, renumbered by first use.
#include <catch2/catch.hpp>

#include "sim/tenant_names.h"

using namespace topsim;

TEST_CASE("sim::NameTable gives each name one index, up to its limit", "[sim][tenants]") {
  NameTable table(2);
  SECTION("a name read again keeps its index; names stay in the order first given") {
    CHECK(table.index("b") == 0u);
    CHECK(table.index("a") == 1u);
    CHECK(table.index("b") == 0u);
    CHECK(table.names() == std::vector<std::string>{"b", "a"});
  }
  SECTION("a new name beyond the limit has no index; known ones still do") {
    table.index("a");
    table.index("b");
    CHECK_FALSE(table.index("c").has_value());
    CHECK(table.index("a") == 0u);
    CHECK(table.names().size() == 2);
  }
  SECTION("the message of a full table names the limit with thousands separated") {
    CHECK(too_many_names("queues", kMaxQueueNames) == "more than 65,534 distinct queues in one workload");
    CHECK(too_many_names("priority classes", kMaxPriorityClassNames) ==
          "more than 254 distinct priority classes in one workload");
  }
}

TEST_CASE("sim::set_tenant_names keeps the names jobs name, in the order jobs first name them", "[sim][tenants]") {
  Workload workload;
  workload.jobs.resize(4);
  const uint16_t queues[] = {2, kNoQueue, 0, 2};
  const uint8_t classes[] = {kNoPriorityClass, 1, 1, kNoPriorityClass};
  for (size_t i = 0; i < 4; ++i) workload.jobs[i].queue = queues[i], workload.jobs[i].priority_class = classes[i];
  set_tenant_names(workload, {"unused", "also-unused", "team-c"}, {"low", "high"});
  // Expectation: team-c (old 2) is first named by job 0, then unused (old 0) by job 2; also-unused goes.
  CHECK(workload.queue_names == std::vector<std::string>{"team-c", "unused"});
  CHECK(workload.jobs[0].queue == 0);
  CHECK(workload.jobs[1].queue == kNoQueue);
  CHECK(workload.jobs[2].queue == 1);
  CHECK(workload.jobs[3].queue == 0);
  CHECK(workload.priority_class_names == std::vector<std::string>{"high"});
  CHECK(workload.jobs[1].priority_class == 0);
  CHECK(workload.jobs[0].priority_class == kNoPriorityClass);
}

TEST_CASE("sim::JobSpec stays 88 bytes with its queue and priority class", "[sim][tenants]") { CHECK(sizeof(JobSpec) == 88); }
