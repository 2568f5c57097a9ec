// `topsim import queues`: what topsim understood of a folder of Kueue / KAI objects, on stdout.
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "tests/test_support.h"

using topsim::test::check_bad_input;
using topsim::test::read_text;
using topsim::test::run_cli;
using topsim::test::some_line_matches;
using topsim::test::TempDir;

namespace {

const std::string kExamples = std::string(TOPSIM_SOURCE_DIR) + "/scenarios/queues/";

}  // namespace

TEST_CASE("cli::import queues: the Kueue example as topsim reads it", "[cli][queues]") {
  const auto r = run_cli("import queues " + kExamples + "example-kueue");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  SECTION("the cohort holds the three queues, each with its quota per flavor and resource in people's units") {
    CHECK(some_line_matches(r.out, "  cohort research: fairSharing.weight 1"));
    CHECK(some_line_matches(r.out,
                            "    ClusterQueue team-b: BestEffortFIFO; preemption: withinClusterQueue LowerPriority, "
                            "reclaimWithinCohort Any, borrowWithinCohort Never;.*"));
    CHECK(some_line_matches(r.out, " *default-flavor +nvidia.com/gpu +32 GPUs +32 GPUs +no limit"));
    CHECK(some_line_matches(r.out, " *default-flavor +nvidia.com/gpu +32 GPUs +no limit +16 GPUs"));
    CHECK(some_line_matches(r.out, " *default-flavor +cpu +1024 cores +no limit +no limit"));
    CHECK(some_line_matches(r.out, " *default-flavor +memory +8192Gi +no limit +no limit"));
  }
  SECTION("LocalQueues, priority classes (highest first), Fair Sharing, nothing skipped") {
    CHECK(some_line_matches(r.out, "  default/team-c -> ClusterQueue team-c"));
    CHECK(r.out.find("         1000  high (WorkloadPriorityClass)\n          100  low") != std::string::npos);
    CHECK(some_line_matches(r.out, "Fair Sharing: off .*"));
    CHECK(some_line_matches(r.out, "Skipped \\(not modelled\\): nothing"));
  }
  SECTION("the same bytes every time") { CHECK(run_cli("import queues " + kExamples + "example-kueue").out == r.out); }
}

TEST_CASE("cli::import queues: the KAI example, -o, and bad input", "[cli][queues]") {
  SECTION("the department above its two queues, in KAI's units") {
    const auto r = run_cli("import queues " + kExamples + "example-kai");
    REQUIRE(r.exit_code == 0);
    CHECK(some_line_matches(r.out, "  research \\(Research department\\): priority 100, reclaimMinRuntime 900 s"));
    CHECK(some_line_matches(r.out, "    team-a: priority 100"));
    CHECK(some_line_matches(r.out, "    team-b: priority 50, preemptMinRuntime 1800 s"));
    CHECK(some_line_matches(r.out, "      gpu quota 32, overQuotaWeight 1, limit 48"));
    CHECK(some_line_matches(r.out, "      cpu \\(cores\\) quota 1024, overQuotaWeight 1, limit none"));
  }
  SECTION("-o writes the same text to a file") {
    TempDir dir;
    const auto r = run_cli("import queues " + kExamples + "example-kai -o " + dir.file("q.txt"));
    REQUIRE(r.exit_code == 0);
    CHECK(read_text(dir.file("q.txt")) == run_cli("import queues " + kExamples + "example-kai").out);
  }
  SECTION("a LocalQueue naming a missing ClusterQueue: exit 2, one line with file, line, object, field") {
    TempDir dir;
    std::filesystem::create_directories(dir.path / "q");
    std::filesystem::copy(kExamples + "example-kueue", dir.path / "q");
    std::ofstream(dir.file("q/local-queues.yaml"), std::ios::app)
        << "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: x}\nspec: {clusterQueue: team-z}\n";
    check_bad_input(run_cli("import queues " + dir.file("q")),
                    "q/local-queues.yaml:26: LocalQueue default/x: spec.clusterQueue: no ClusterQueue 'team-z'");
  }
}
