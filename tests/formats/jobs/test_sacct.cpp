// Slurm sacct and Helios readers, read from streams (the CLI tests run the same through files).
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "formats/jobs/imported_jobs.h"
#include "formats/jobs/job_list_entries.h"
#include "formats/jobs/sacct.h"

using namespace topsim;

namespace {

Expected<ImportedJobs> sacct(const std::string& text) {
  std::istringstream in(text);
  return read_sacct(in, "sacct.txt");
}

Expected<ImportedJobs> helios(const std::string& text) {
  std::istringstream in(text);
  return read_helios(in, "cluster_log.csv");
}

nlohmann::json entries(const ImportedJobs& imported) { return nlohmann::json::parse(render_job_list(imported)).at("jobs"); }

const char* kHeader = "JobID|JobName|Submit|Start|End|Elapsed|AllocTRES|NNodes|State\n";

}  // namespace

TEST_CASE("formats::sacct: allocations that ran with GPUs become jobs", "[formats][sacct]") {
  SECTION("GPUs from gres/gpu, pods from NNodes, arrival relative to the first, run time End - Start") {
    const auto r =
        sacct(std::string(kHeader) +
              "7|train|2024-05-01T10:00:00|2024-05-01T10:00:10|2024-05-01T11:00:10|01:00:00|cpu=64,gres/gpu=16,node=2|2|"
              "COMPLETED\n"
              "8|eval|2024-05-01T10:05:00|2024-05-01T10:05:00|2024-05-01T10:15:00|00:10:00|cpu=8,gres/gpu=2,node=1|1|"
              "COMPLETED\n");
    REQUIRE(r.ok());
    const auto jobs = entries(*r);
    REQUIRE(jobs.size() == 2);
    CHECK(jobs[0].at("workers") == 2);
    CHECK(jobs[0].at("gpus_per_worker") == 8);
    CHECK(jobs[0].at("duration_s") == 3600);
    CHECK(jobs[1].at("submit_s") == 300);
    CHECK(r->size() == 2);
    CHECK(imported_workload(*r, "").ok());
  }
  SECTION("columns in any order, others ignored") {
    const auto r = sacct(
        "State|NNodes|AllocTRES|End|Start|Submit|JobName|JobID|Partition\n"
        "COMPLETED|1|gres/gpu=4|2024-05-01T10:30:00|2024-05-01T10:00:00|2024-05-01T09:59:00|x|42|gpu\n");
    REQUIRE(r.ok());
    CHECK(entries(*r).at(0).at("gpus_per_worker") == 4);
  }
  SECTION("CPU-only and never-started allocations are skipped, each with a reason") {
    const auto r =
        sacct(std::string(kHeader) +
              "1|cpu|2024-05-01T10:00:00|2024-05-01T10:00:00|2024-05-01T10:10:00|00:10:00|cpu=8,node=1|1|COMPLETED\n"
              "2|wait|2024-05-01T10:00:00|Unknown|Unknown|00:00:00|gres/gpu=8,node=1|1|PENDING\n"
              "3|ok|2024-05-01T10:00:00|2024-05-01T10:00:00|2024-05-01T10:10:00|00:10:00|gres/gpu=1,node=1|1|COMPLETED\n");
    REQUIRE(r.ok());
    CHECK(r->size() == 1);
    CHECK(r->skipped.size() == 2);
  }
}

TEST_CASE("formats::sacct: bad input is one line naming the source and line", "[formats][sacct]") {
  SECTION("a node count that is not a number") {
    const auto r = sacct(std::string(kHeader) +
                         "1|x|2024-05-01T10:00:00|2024-05-01T10:00:00|2024-05-01T10:10:00|00:10:00|gres/gpu=1|two|COMPLETED\n");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message == "sacct.txt:2: column NNodes: 'two' is not a node count (1-65535)");
  }
  SECTION("a header without the columns a job needs") {
    const auto r = sacct("JobID|JobName\n1|x\n");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::StartsWith("sacct.txt:1: "));
  }
  SECTION("no GPU job at all") {
    const auto r = sacct(std::string(kHeader) +
                         "1|cpu|2024-05-01T10:00:00|2024-05-01T10:00:00|2024-05-01T10:10:00|00:10:00|cpu=8,node=1|1|COMPLETED\n");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::StartsWith("sacct.txt"));
  }
}

TEST_CASE("formats::helios: cluster_log.csv rows with GPUs become jobs", "[formats][helios]") {
  const std::string header = "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n";
  SECTION("gpu_num over node_num pods, times relative to the first submission") {
    const auto r = helios(header +
                          "1,u,v,16,64,2,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:31,2020-06-09 19:41:31,3600,30\n"
                          "2,u,v,0,8,1,COMPLETED,2020-06-09 18:42:01,2020-06-09 18:42:01,2020-06-09 18:52:01,600,0\n");
    REQUIRE(r.ok());
    const auto jobs = entries(*r);
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].at("workers") == 2);
    CHECK(jobs[0].at("gpus_per_worker") == 8);
    CHECK(r->skipped.size() == 1);
  }
  SECTION("a time that is not one names its line and column") {
    const auto r = helios(header + "1,u,v,1,1,1,COMPLETED,June 9th,2020-06-09 18:41:31,2020-06-09 19:41:31,3600,30\n");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message == "cluster_log.csv:2: column submit_time: 'June 9th' is not a time (2020-06-09 18:41:01)");
  }
}

TEST_CASE("formats::sacct and helios: times that are no calendar time are refused, not skipped", "[formats][sacct]") {
  const std::string ok = "7|t|2024-05-01T10:00:00|2024-05-01T10:00:10|2024-05-01T11:00:10|01:00:00|gres/gpu=8|1|COMPLETED\n";
  SECTION("month 13, 30 February, 29 February of a common year, hour 24: the line and the column") {
    for (const char* time : {"2024-13-01T10:00:00", "2024-02-30T10:00:00", "2023-02-29T10:00:00", "2024-05-01T24:00:00"}) {
      INFO(time);
      std::string row = ok;
      row.replace(row.find("2024-05-01T10:00:10"), 19, time);
      const auto r = sacct(kHeader + ok + row);
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().message == std::string("sacct.txt:3: column Start: '") + time + "' is not a time (2024-05-01T10:00:00)");
    }
  }
  SECTION("29 February of a leap year, and Unknown, are times as before") {
    std::string row = ok;
    row.replace(row.find("2024-05-01T10:00:00"), 19, "2024-02-29T10:00:00");
    CHECK(sacct(kHeader + row).ok());
    std::string pending = ok;
    pending.replace(pending.find("2024-05-01T10:00:10"), 19, "Unknown");
    const auto r = sacct(kHeader + ok + pending);
    REQUIRE(r.ok());
    CHECK(r->size() == 1);
  }
  SECTION("Helios: the same rule, and no GPU job on 0 nodes") {
    const std::string header = "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n";
    const auto month = helios(header + "j,u,v,8,4,1,COMPLETED,2020-06-09 18:00:00,2020-13-09 18:00:00,2020-06-09 19:00:00,1,0\n");
    REQUIRE_FALSE(month.ok());
    CHECK(month.error().message ==
          "cluster_log.csv:2: column start_time: '2020-13-09 18:00:00' is not a time (2020-06-09 18:41:01)");
    const auto zero = helios(header + "j,u,v,8,4,0,COMPLETED,2020-06-09 18:00:00,2020-06-09 18:00:00,2020-06-09 19:00:00,1,0\n");
    REQUIRE_FALSE(zero.ok());
    CHECK(zero.error().message == "cluster_log.csv:2: column node_num: 0 is not a node count (1-65535)");
  }
  SECTION("a job the job-list checks refuse names its line, not the job list's pointer") {
    auto r = sacct(kHeader + ok + "9|big|2024-05-01T10:00:00|2024-05-01T10:00:00|2024-05-01T10:01:00|1|gres/gpu=2|1|X\n");
    REQUIRE(r.ok());
    r->entries->jobs[1]["workers"] = 0;  // as an entry the checks refuse
    const auto w = imported_workload(*r, "");
    REQUIRE_FALSE(w.ok());
    CHECK_THAT(w.error().message, Catch::StartsWith("sacct.txt:3 (job 9-big): /workers: "));
  }
}

TEST_CASE("formats::sacct: output as it comes", "[formats][sacct]") {
  const std::string row7 = "7|train|2024-05-01T10:00:00|2024-05-01T10:00:10|2024-05-01T11:00:10|cpu=64,gres/gpu=16,node=2|2";
  SECTION("comment lines and --parsable (a separator ending each line) are read") {
    const auto r = sacct("# sacct -a -p\nJobID|JobName|Submit|Start|End|AllocTRES|NNodes|\n" + row7 + "|\n");
    REQUIRE(r.ok());
    CHECK(entries(*r)[0].at("workers") == 2);
  }
  SECTION("--noheader output with the --format it was run with; without it, one line saying what to give") {
    std::istringstream in(row7 + "\n");
    const auto r = read_sacct(in, "sacct.txt", "JobID,JobName,Submit,Start,End,AllocTRES%40,NNodes");
    REQUIRE(r.ok());
    CHECK(entries(*r)[0].at("gpus_per_worker") == 8);
    const auto bare = sacct(row7 + "\n");
    REQUIRE_FALSE(bare.ok());
    CHECK_THAT(bare.error().message, Catch::StartsWith("sacct.txt:1: sacct --parsable2 output without a header") &&
                                         Catch::Contains("--sacct-format") && Catch::Contains("sacct --allocations --parsable2"));
    const auto defaults = sacct("7|train|gpu|acct|64|COMPLETED|0:0\n");
    REQUIRE_FALSE(defaults.ok());
    CHECK_THAT(defaults.error().message, Catch::Contains("sacct's default fields"));
  }
  SECTION("the fixed-width table: columns at the dashes' widths, names in any case") {
    const auto r = sacct(
        "       JobID              Submit               Start                 End            AllocTRES   NNodes\n"
        "------------ ------------------- ------------------- ------------------- -------------------- --------\n"
        "9            2024-05-01T10:00:00 2024-05-01T10:00:00 2024-05-01T10:30:00   gres/gpu=4,node=1        1\n"
        "9.batch      2024-05-01T10:00:00 2024-05-01T10:00:00 2024-05-01T10:30:00   gres/gpu=4,node=1        1\n");
    REQUIRE(r.ok());
    const auto jobs = entries(*r);
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].at("duration_s") == 1800);
  }
  SECTION("a fixed-width field sacct cut at its width is refused naming the column") {
    const auto r = sacct(
        "JobID  Submit              Start               End                 AllocTRES  NNodes\n"
        "------ ------------------- ------------------- ------------------- ---------- ------\n"
        "9      2024-05-01T10:00:00 2024-05-01T10:00:00 2024-05-01T10:30:00 billing=8+      1\n");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::StartsWith("sacct.txt:3: column AllocTRES is cut at its 10 characters"));
  }
  SECTION("the columns read are listed at once when missing") {
    const auto r = sacct("JobID|AllocTRES\n7|gres/gpu=1\n");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::StartsWith("sacct.txt:1: sacct output without the columns Submit, Start, End, NNodes") &&
                                      Catch::Contains("run sacct --allocations --parsable2"));
  }
  SECTION("MIG slices count as GPUs, as Slurm counts them, noted") {
    const auto r = sacct(
        "JobID|Submit|Start|End|AllocTRES|NNodes\n"
        "8|2024-05-01T10:00:00|2024-05-01T10:00:00|2024-05-01T10:10:00|gres/gpu:a100_3g.20gb=2|1\n");
    REQUIRE(r.ok());
    CHECK(entries(*r)[0].at("gpus_per_worker") == 2);
    CHECK_THAT(r->notes.back(), Catch::Contains("MIG slices (a100_3g.20gb)"));
  }
}
