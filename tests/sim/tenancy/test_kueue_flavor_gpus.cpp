// Flavors of one GPU model each (ResourceFlavor nodeLabels nvidia.com/gpu.product): Kueue matches
// a workload's node selector against each flavor's labels (flavorassigner.go flavorSelector) and
// skips the flavors it does not match; only keys some flavor of the group names count.
#include <catch2/catch.hpp>

#include <algorithm>

#include "tests/sim/tenancy/kueue_fixture.h"

using namespace topsim;
using topsim::test::KueueFixture;
using Ids = std::vector<uint32_t>;
using Cycle = std::pair<Ids, Ids>;  // admitted, evicted

namespace {

uint64_t models(std::initializer_list<const char*> names) {
  uint64_t set = 0;
  for (const char* name : names) set |= uint64_t{1} << find_gpu_model(name)->catalog_index;
  return set;
}

// ClusterQueue `team`: nvidia.com/gpu in flavor a100 (8 GPUs), then h100 (8 GPUs), no cohort.
KueueFixture a100_then_h100() {
  KueueFixture f;
  f.gpu_flavor("a100", "a100").gpu_flavor("h100", "h100");
  f.queue_flavors("team", "", {{"a100", {{kResourceGpu, 8}}}, {"h100", {{kResourceGpu, 8}}}});
  f.build();
  return f;
}

// A workload of `amount` GPUs selecting the GPU models `selects` (registered as a set of the
// admission's, as the workload's gpu_model_sets are).
QueuedWorkload gpus(KueueFixture& f, uint32_t id, int64_t amount, uint64_t selects = kAnyGpuModels) {
  static std::vector<uint64_t> sets;
  QueuedWorkload w = f.workload(id, "team", 0, amount, id, kResourceGpu);
  if (selects == kAnyGpuModels) return w;
  auto found = std::find(sets.begin(), sets.end(), selects);
  if (found == sets.end()) found = sets.insert(sets.end(), selects);
  w.gpu_models = static_cast<uint8_t>(found - sets.begin());
  f.admission->set_gpu_model_sets(sets);
  return w;
}

std::string flavor_of(const KueueFixture& f, uint32_t id) {
  const int flavor = f.admission->gpu_flavor(id);
  return flavor < 0 ? "" : f.admission->tree().flavor_name(flavor);
}

}  // namespace

TEST_CASE("kueue::flavors a workload is admitted only on a flavor of a GPU model it selects", "[sim][kueue][gpu-models]") {
  KueueFixture f = a100_then_h100();
  SECTION("selecting nothing, it takes the first flavor that fits") {
    f.admission->enqueue(gpus(f, 1, 8));
    CHECK(f.cycles(1) == Cycle{{1}, {}});
    CHECK(flavor_of(f, 1) == "a100");
    CHECK(f.admission->flavor_gpu(f.admission->gpu_flavor(1)) == find_gpu_model("a100")->catalog_index);
  }
  SECTION("selecting h100, it skips a100 although a100 has room") {
    f.admission->enqueue(gpus(f, 1, 8, models({"h100"})));
    CHECK(f.cycles(1) == Cycle{{1}, {}});
    CHECK(flavor_of(f, 1) == "h100");
  }
  SECTION("selecting h100 or a100, the queue's order decides") {
    f.admission->enqueue(gpus(f, 1, 8, models({"h100", "a100"})));
    CHECK(f.cycles(1) == Cycle{{1}, {}});
    CHECK(flavor_of(f, 1) == "a100");
  }
  SECTION("selecting h100 when h100 is full, it waits though a100 is free") {
    f.admission->enqueue(gpus(f, 1, 8, models({"h100"})));
    f.admission->enqueue(gpus(f, 2, 8, models({"h100"})));
    f.admission->enqueue(gpus(f, 3, 8, models({"a100"})));
    const Cycle cycle = f.cycles(-1);
    CHECK(cycle.first == Ids{1, 3});  // 3 is not held back by 2: another selection is another shape
    CHECK(f.admission->waiting() == 1);
    CHECK_THAT(f.admission->wait_reason(2), Catch::Contains("insufficient quota for nvidia.com/gpu in flavor h100"));
    CHECK_THAT(f.admission->wait_reason(2), !Catch::Contains("flavor a100"));
  }
  SECTION("selecting a GPU model no flavor has, it can never be admitted") {
    const QueuedWorkload w = gpus(f, 1, 8, models({"v100"}));
    CHECK(f.admission->never_admitted(w.cluster_queue, w.request, f.admission->gpu_models_of(w)) ==
          "no flavor of ClusterQueue team for nvidia.com/gpu matches the GPU models its pods select (v100): its flavors are "
          "a100 (a100), h100 (h100)");
    CHECK(f.admission->never_admitted(w.cluster_queue, w.request).empty());
  }
}

TEST_CASE("kueue::flavors only label keys a flavor of the group names count", "[sim][kueue][gpu-models]") {
  SECTION("no flavor names a GPU model: a selecting workload matches every flavor") {
    KueueFixture f;
    f.flavor("on-demand").flavor("spot");
    f.queue_flavors("team", "", {{"on-demand", {{kResourceGpu, 0}}}, {"spot", {{kResourceGpu, 8}}}});
    f.build();
    f.admission->enqueue(gpus(f, 1, 8, models({"h100"})));
    CHECK(f.cycles(1) == Cycle{{1}, {}});
    CHECK(flavor_of(f, 1) == "spot");
    CHECK(f.admission->flavor_gpu(f.admission->gpu_flavor(1)) == -1);
  }
  SECTION("another flavor names one: a flavor without the label does not match a selecting workload") {
    KueueFixture f;
    f.flavor("any-gpu").gpu_flavor("h100", "h100");
    f.queue_flavors("team", "", {{"any-gpu", {{kResourceGpu, 8}}}, {"h100", {{kResourceGpu, 8}}}});
    f.build();
    f.admission->enqueue(gpus(f, 1, 8, models({"h100"})));
    f.admission->enqueue(gpus(f, 2, 8));
    CHECK(f.cycles(-1) == Cycle{{1, 2}, {}});
    CHECK(flavor_of(f, 1) == "h100");
    CHECK(flavor_of(f, 2) == "any-gpu");
  }
  SECTION("a workload asking no GPUs has no GPU flavor") {
    KueueFixture f;
    f.flavor("default");
    f.queue("team", "", {{"cpu", 8}});
    f.build();
    f.admission->enqueue(f.workload(1, "team", 0, 4));
    CHECK(f.cycles(1) == Cycle{{1}, {}});
    CHECK(f.admission->gpu_flavor(1) == -1);
  }
}
