#include <catch2/catch.hpp>

#include "core/allocator.h"
#include "core/builtin_models.h"
#include "core/model_catalog.h"
#include "core/throughput.h"
#include "tests/core/model_fixture.h"
#include "tests/core/topology_fixture.h"

using namespace topsim;

namespace {

TrainingJob job(const char* name, TrainingFramework framework, int batch = 64, const char* gpu_name = "v100") {
  return TrainingJob{model(name), framework, batch, gpu(gpu_name)};
}

ThroughputEstimate estimate(const TrainingJob& j, const CommPath& path, const OverlapModel& overlap = {}) {
  auto e = estimate_throughput(j, path, overlap);
  REQUIRE(e.ok());
  return *e;
}

// The calibration network of the brief's experiment (throughput.h, docs/throughput-model.md):
// 10 GbE node NICs, NCCL's socket transport at 60% of line rate.
NetworkModel calibration_network() {
  NetworkModel net;
  net.tcp_socket_efficiency = kCalibrationTcpSocketEfficiency;
  return net;
}

// Topology-aware: best-fit picks 4 GPUs of an idle dgx1-v100, pods share host IPC.
CommPath topology_aware_path(const Allocator& allocator) {
  PlacementRequest request;
  request.gpus = 4;
  auto placement = allocator.place(all_gpus(allocator.topology().gpu_count()), request);
  REQUIRE(placement.ok());
  return ring_plan_path(placement->ring);
}

// Default scheduling: 2 + 2 single-GPU pods on two nodes, each node's pods adjacent in the ring.
CommPath default_spread_path() {
  auto path = pod_socket_path({{0}, {0}, {1}, {1}}, {kCalibrationNicGbit, kCalibrationNicGbit}, calibration_network());
  REQUIRE(path.ok());
  return *path;
}

}  // namespace

TEST_CASE("core::throughput calibration on 2 x dgx1-v100, TF + Horovod, 4 x 1 GPU, b64", "[core][throughput]") {
  const Topology dgx1 = builtin("dgx1-v100");
  const Allocator allocator(dgx1);
  const CommPath nvlink = topology_aware_path(allocator);
  const CommPath sockets = default_spread_path();

  SECTION(
      "the paths: best-fit quad is NVLink-only at 88.9 GB/s (4 single-link rings); the 2 + 2 pod ring runs TCP at 0.75 GB/s") {
    // Expectation: 4 ranks on one host over NVLink P2P at the RingModel's 4 x 22.2 GB/s; 4 pods = 4
    // NCCL hosts whose slowest hop is a 10 GbE NIC at 60%: 1.25 x 0.6 = 0.75 GB/s.
    CHECK(nvlink.ranks == 4);
    CHECK(nvlink.hosts == 1);
    CHECK(nvlink.transport == CommTransport::NvLinkP2p);
    CHECK(nvlink.nvlink_hops);
    CHECK(nvlink.bus_bandwidth_gbps == Approx(4 * 25.0 * 128 / 144));
    CHECK(sockets.ranks == 4);
    CHECK(sockets.hosts == 4);
    CHECK(sockets.transport == CommTransport::Tcp);
    CHECK(sockets.bus_bandwidth_gbps == Approx(0.75));
  }
  SECTION("VGG16: 991.92 images/sec topology-aware, 200.47 default, each within 10%") {
    // Expectation: the brief's table, VGG16 991.92 (NVLink) and 200.47 (2 + 2 over TCP).
    const TrainingJob vgg16 = job("vgg16", TrainingFramework::TensorFlow);
    CHECK(estimate(vgg16, nvlink).samples_per_sec == Approx(991.92).epsilon(0.10));
    CHECK(estimate(vgg16, sockets).samples_per_sec == Approx(200.47).epsilon(0.10));
  }
  SECTION("ResNet50: 1471.55 images/sec topology-aware, 745.38 default, each within 10%") {
    // Expectation: the brief's table, ResNet50 1471.55 (NVLink) and 745.38 (2 + 2 over TCP).
    const TrainingJob resnet50 = job("resnet50", TrainingFramework::TensorFlow);
    CHECK(estimate(resnet50, nvlink).samples_per_sec == Approx(1471.55).epsilon(0.10));
    CHECK(estimate(resnet50, sockets).samples_per_sec == Approx(745.38).epsilon(0.10));
  }
  SECTION("the overlap is the two default targets' least-squares centre, to two digits") {
    // Expectation: the sum of squared relative errors of VGG16 (200.47) and ResNet50 (745.38)
    // under default placement is smallest at the shipped overlap among its neighbours 0.01
    // apart (centre 0.328; the value rounded to 0.3 before fitted worse: 7.7 against 6.6 %^2).
    const auto squared_errors = [&](double overlap) {
      const OverlapModel model{overlap, overlap};
      const double vgg16 = estimate(job("vgg16", TrainingFramework::TensorFlow), sockets, model).samples_per_sec / 200.47 - 1;
      const double resnet50 =
          estimate(job("resnet50", TrainingFramework::TensorFlow), sockets, model).samples_per_sec / 745.38 - 1;
      return vgg16 * vgg16 + resnet50 * resnet50;
    };
    const double at = squared_errors(kTensorFlowHorovodOverlap);
    CHECK(at < squared_errors(kTensorFlowHorovodOverlap - 0.01));
    CHECK(at < squared_errors(kTensorFlowHorovodOverlap + 0.01));
    CHECK(kPyTorchDdpRate == kTensorFlowHorovodOverlap);
  }
  SECTION("PyTorch DDP comes out of the same network with the PyTorch figures and its bucket pipeline") {
    // Expectation: NVLink hides every bucket but the last, which holds the first layers'
    // gradients and is all-reduced after the backward pass (ResNet50: 9.3 MiB at 88.9 GB/s,
    // ~0.16 ms of a 194 ms step); the socket placement loses most of the communication.
    const TrainingJob vgg16 = job("vgg16", TrainingFramework::PyTorch);
    const TrainingJob resnet50 = job("resnet50", TrainingFramework::PyTorch);
    CHECK(estimate(vgg16, nvlink).samples_per_sec == Approx(819.826).epsilon(1e-5));
    CHECK(estimate(resnet50, nvlink).samples_per_sec == Approx(1318.69).epsilon(1e-5));
    CHECK(estimate(resnet50, nvlink).samples_per_sec < 4 * 330.0);
    CHECK(estimate(resnet50, nvlink).exposed_comm_ms == Approx(0.193).margin(0.01));
    CHECK(estimate(vgg16, sockets).samples_per_sec < 0.25 * 4 * 205.0);
    CHECK(estimate(resnet50, sockets).samples_per_sec < 0.6 * 4 * 330.0);
    CHECK(estimate(vgg16, sockets).samples_per_sec <
          estimate(job("vgg16", TrainingFramework::TensorFlow), sockets).samples_per_sec);
  }
}

TEST_CASE("core::throughput placement and overlap ordering", "[core][throughput]") {
  const Topology dgx1 = builtin("dgx1-v100");
  const Topology pcie = builtin("pcie-8gpu");
  const TrainingJob vgg16 = job("vgg16", TrainingFramework::TensorFlow);

  SECTION("NVLink placement beats PCIe beats sockets for the same job") {
    // Expectation: with every ms of all-reduce exposed (overlap 0), 4 GPUs over NVLink (88.9 GB/s)
    // > 4 GPUs over PCIe > 4 pods on one node over the pod network (2.2 GB/s); with the default
    // overlap the PCIe all-reduce may hide behind the backward pass too (>=), sockets cannot.
    const CommPath nvlink = ring_plan_path(RingModel(dgx1).plan({0, 1, 2, 3}));
    const CommPath pcie_path = ring_plan_path(RingModel(pcie).plan({0, 1, 2, 3}));
    auto sockets = pod_socket_path({{0}, {0}, {0}, {0}}, {10.0});
    REQUIRE(sockets.ok());
    CHECK(pcie_path.transport != CommTransport::NvLinkP2p);
    CHECK(sockets->transport == CommTransport::PodSockets);
    CHECK(sockets->bus_bandwidth_gbps == Approx(kPodSocketGbps));
    const OverlapModel none{0.0, 0.0};
    CHECK(nvlink.bus_bandwidth_gbps > pcie_path.bus_bandwidth_gbps);
    CHECK(estimate(vgg16, nvlink, none).samples_per_sec > estimate(vgg16, pcie_path, none).samples_per_sec);
    CHECK(estimate(vgg16, pcie_path, none).samples_per_sec > estimate(vgg16, *sockets, none).samples_per_sec);
    CHECK(estimate(vgg16, nvlink).samples_per_sec >= estimate(vgg16, pcie_path).samples_per_sec);
    CHECK(estimate(vgg16, pcie_path).samples_per_sec > estimate(vgg16, *sockets).samples_per_sec);
  }
  SECTION("more overlap gives higher throughput while communication is exposed") {
    // Expectation: over 10 GbE TCP the all-reduce exceeds the backward pass, so every extra
    // share of overlap hides more of it; with overlap 1 on NVLink nothing stays exposed.
    const CommPath tcp{4, 4, 0.75, false, CommTransport::Tcp};
    double previous = 0;
    for (double share : {0.0, 0.3, 0.6, 1.0}) {
      const double now = estimate(vgg16, tcp, OverlapModel{share, share}).samples_per_sec;
      CHECK(now > previous);
      previous = now;
    }
    const CommPath nvlink = ring_plan_path(RingModel(dgx1).plan({0, 1, 2, 3}));
    CHECK(estimate(vgg16, nvlink, OverlapModel{1.0, 1.0}).exposed_comm_ms == 0.0);
    CHECK(estimate(vgg16, nvlink, OverlapModel{0.0, 0.0}).exposed_comm_ms > 0.0);
  }
  SECTION("a 1-GPU job has no communication time") {
    // Expectation: comm 0, step = compute, throughput = the single-GPU figure (248 images/sec).
    const ThroughputEstimate e = estimate(vgg16, ring_plan_path(RingModel(dgx1).plan({5})));
    CHECK(e.comm_ms == 0.0);
    CHECK(e.exposed_comm_ms == 0.0);
    CHECK(e.step_ms == Approx(e.compute_ms));
    CHECK(e.samples_per_sec == Approx(248.0));
  }
}

TEST_CASE("core::throughput socket rings and network hops", "[core][throughput]") {
  SECTION("pods grouped by node cross each NIC once per direction") {
    // Expectation: ring 0,0,1,1 crosses 0->1 and 1->0 once each: bus = one NIC's TCP rate.
    auto bus = socket_ring_bus_gbps({0, 0, 1, 1}, {10.0, 10.0}, calibration_network());
    REQUIRE(bus.ok());
    CHECK(*bus == Approx(0.75));
  }
  SECTION("alternating pods put two ring hops on each NIC direction and halve the bus") {
    // Expectation: ring 0,1,0,1 leaves each node twice: 0.75 / 2 = 0.375 GB/s.
    auto bus = socket_ring_bus_gbps({0, 1, 0, 1}, {10.0, 10.0}, calibration_network());
    REQUIRE(bus.ok());
    CHECK(*bus == Approx(0.375));
  }
  SECTION("the slowest NIC bounds the ring; one node uses the pod network only") {
    // Expectation: a 1 GbE node limits the ring to 0.125 x 0.5 GB/s (default TCP efficiency);
    // pods of one node only see the pod network's 2.2 GB/s; one rank has no bus.
    auto mixed = socket_ring_bus_gbps({0, 1}, {25.0, 1.0});
    REQUIRE(mixed.ok());
    CHECK(*mixed == Approx(0.0625));
    auto local = socket_ring_bus_gbps({3, 3}, {0, 0, 0, 25.0});
    REQUIRE(local.ok());
    CHECK(*local == Approx(kPodSocketGbps));
    CHECK(*socket_ring_bus_gbps({0}, {10.0}) == 0.0);
  }
  SECTION("bad rings are errors") {
    // Expectation: a node without a NIC entry, and a zero NIC speed on a crossed node, fail.
    CHECK_FALSE(socket_ring_bus_gbps({0, 2}, {10.0, 10.0}).ok());
    CHECK_FALSE(socket_ring_bus_gbps({0, 1}, {10.0, 0.0}).ok());
  }
  SECTION("network hop bandwidth per transport from the NIC speed") {
    // Expectation: TCP 10 GbE = 1.25 x 0.5; RDMA 100G IB = 12.5 x 0.885; RoCE lower than IB;
    // intra-host transports and RDMA over plain Ethernet are errors.
    CHECK(*network_hop_gbps(CommTransport::Tcp, 10) == Approx(0.625));
    CHECK(*network_hop_gbps(CommTransport::Rdma, 100) == Approx(12.5 * kInfiniBandEfficiency));
    CHECK(*network_hop_gbps(CommTransport::Rdma, 100, {}, NicTransport::RoCE) < *network_hop_gbps(CommTransport::Rdma, 100));
    CHECK(*network_hop_gbps(CommTransport::PodSockets, 0) == Approx(kPodSocketGbps));
    CHECK_FALSE(network_hop_gbps(CommTransport::NvLinkP2p, 100).ok());
    CHECK_FALSE(network_hop_gbps(CommTransport::Rdma, 100, {}, NicTransport::Ethernet).ok());
    CHECK_FALSE(network_hop_gbps(CommTransport::Tcp, 0).ok());
  }
  SECTION("multi-GPU pods: the ring at the slower of their NVLink ring and the socket ring; Tree beside it") {
    // Expectation: two 2-GPU pods on two nodes: 4 ranks, 2 NCCL hosts, the ring's bus = the TCP
    // hop, 0.625 GB/s; NCCL's Tree over the 2 pods sends each byte once per direction through the
    // hop: 0.92 x 0.625 x 2 x 3/4 = 0.8625 GB/s (core/nccl_algo.h), so Tree runs large messages.
    const Topology dgx1 = builtin("dgx1-v100");
    const RingModel rings(dgx1);
    const RingPlan pair = rings.plan({0, 3});
    auto path = pod_socket_path({{0, &pair}, {1, &pair}}, {10.0, 10.0});
    REQUIRE(path.ok());
    CHECK(path->ranks == 4);
    CHECK(path->hosts == 2);
    CHECK(path->nvlink_hops);
    CHECK(path->algos().ring_bus_gbps == Approx(0.625));
    CHECK(path->algorithm == NcclAlgorithm::Tree);
    CHECK(path->bus_bandwidth_gbps == Approx(0.92 * 0.625 * 2 * 3 / 4));
  }
}

TEST_CASE("core::throughput large models over 10 GbE TCP", "[core][throughput]") {
  // Two nodes, one GPU each, host networking over a 10 GbE NIC at the default TCP efficiency.
  const CommPath tcp{2, 2, *network_hop_gbps(CommTransport::Tcp, 10), false, CommTransport::Tcp};

  SECTION("BERT-large and GPT-2 produce samples/sec with communication dominating") {
    // Expectation: 1.3-6.2 GB of gradients over 0.625 GB/s take longer than the step's compute.
    const std::pair<const char*, int> cases[] = {{"bert-large", 32}, {"gpt2-small", 4}, {"gpt2-large", 4}, {"gpt2-xl", 4}};
    for (const auto& [name, batch] : cases) {
      INFO(name);
      CHECK(model_at(model(name))->unit == SampleUnit::Samples);
      const ThroughputEstimate e = estimate(job(name, TrainingFramework::PyTorch, batch), tcp);
      CHECK(e.samples_per_sec > 0);
      CHECK(e.comm_ms > e.compute_ms);
      CHECK(e.exposed_comm_ms > 0.5 * e.step_ms);
    }
  }
}

TEST_CASE("core::throughput model catalog", "[core][throughput]") {
  SECTION("names resolve case-insensitively and gradients are 4 bytes per parameter") {
    // Expectation: 9 models; "ResNet-50" finds resnet50; VGG16 gradients 553.4 MB.
    CHECK(model_names().size() == 9);
    CHECK(model("ResNet-50") == model("resnet50"));
    CHECK(model("GPT2") == model("gpt2-small"));
    CHECK(model_at(model("vgg16"))->gradient_bytes() == Approx(553.43e6).epsilon(1e-4));
    CHECK(model_at(model("gpt2-xl"))->gradient_bytes() == Approx(6230.4e6).epsilon(1e-4));
  }
  SECTION("framework names are exact in files; parse_training_framework is lenient") {
    // Expectation: letter case, '-' and '_' are ignored and "tf" / "torch" are aliases; the
    // exact parse takes only "tensorflow" and "pytorch".
    CHECK(enum_name(TrainingFramework::TensorFlow) == "tensorflow");
    CHECK(enum_name(TrainingFramework::PyTorch) == "pytorch");
    CHECK(parse_training_framework("Py-Torch") == TrainingFramework::PyTorch);
    CHECK(parse_training_framework("TENSOR_FLOW") == TrainingFramework::TensorFlow);
    CHECK(parse_training_framework("TF") == TrainingFramework::TensorFlow);
    CHECK(parse_training_framework("torch") == TrainingFramework::PyTorch);
    CHECK_FALSE(parse_training_framework("jax"));
    CHECK_FALSE(parse_enum<TrainingFramework>("tf"));
    CHECK_FALSE(parse_enum<TrainingFramework>("PyTorch"));
  }
  SECTION("given figures are returned as given; derived ones say how") {
    // Expectation: V100 TF ResNet50 368 at b64 (given); A100 PyTorch VGG16 = 938 x 205/330.
    auto given = single_gpu_throughput(model("resnet50"), *gpu("v100"), TrainingFramework::TensorFlow);
    REQUIRE(given.ok());
    CHECK(given->samples_per_sec == 368.0);
    CHECK(given->reference_batch == 64);
    CHECK_FALSE(given->derived);
    auto derived = single_gpu_throughput(model("vgg16"), *gpu("a100"), TrainingFramework::PyTorch);
    REQUIRE(derived.ok());
    CHECK(derived->samples_per_sec == Approx(938.0 * 205 / 330));
    CHECK(derived->derived);
    CHECK(derived->derivation.find("205/330") != std::string_view::npos);
    auto resnet101 = single_gpu_throughput(model("resnet101"), *gpu("h100"), TrainingFramework::TensorFlow);
    REQUIRE(resnet101.ok());
    CHECK(resnet101->derived);
    CHECK(resnet101->derivation.find("resnet50") != std::string_view::npos);
  }
  SECTION("throughput is flat above the reference batch and lower below it") {
    // Expectation: b128 keeps 368/s; b32 runs at 368 / 1.1 (10% fixed share of the b64 step).
    const int resnet50 = model("resnet50");
    const auto rate = [&](int batch) {
      return batch * 1e3 / *compute_step_ms(resnet50, *gpu("v100"), TrainingFramework::TensorFlow, batch);
    };
    CHECK(rate(128) == Approx(368.0));
    CHECK(rate(32) == Approx(368.0 / 1.1));
    CHECK_FALSE(compute_step_ms(resnet50, *gpu("v100"), TrainingFramework::TensorFlow, 0).ok());
  }
  SECTION("unknown models and GPUs are errors, never defaults") {
    // Expectation: "vgg19" is unknown; an unknown GPU name lists the known ones; a model index
    // beyond the catalog fails, and so does an estimate without a GPU.
    CHECK_FALSE(find_model("vgg19").ok());
    CHECK(find_model("vgg19").error().message.find("known: vgg16") != std::string::npos);
    CHECK_FALSE(training_gpu("no-such-gpu").ok());
    CHECK(training_gpu("no-such-gpu").error().message.find("known: p100") != std::string::npos);
    CHECK(*training_gpu("V100M32") == gpu("v100-32g"));
    CHECK(*training_gpu("t4") == gpu("t4"));
    CHECK_FALSE(single_gpu_throughput(99, *gpu("v100"), TrainingFramework::PyTorch).ok());
    CHECK_FALSE(estimate_throughput(TrainingJob{model("resnet50"), TrainingFramework::PyTorch, 64, nullptr}, CommPath{}).ok());
    CHECK_FALSE(estimate_throughput(TrainingJob{99, TrainingFramework::PyTorch, 64, gpu("v100")}, CommPath{}).ok());
  }
  SECTION("malformed communication paths are errors") {
    // Expectation: no ranks, more hosts than ranks, several ranks without bandwidth, overlap > 1.
    const TrainingJob j = job("resnet50", TrainingFramework::TensorFlow);
    CHECK_FALSE(estimate_throughput(j, CommPath{0, 1, 0, false, CommTransport::None}).ok());
    CHECK_FALSE(estimate_throughput(j, CommPath{2, 3, 1, false, CommTransport::Tcp}).ok());
    CHECK_FALSE(estimate_throughput(j, CommPath{2, 2, 0, false, CommTransport::Tcp}).ok());
    CHECK_FALSE(estimate_throughput(j, CommPath{2, 2, 1, false, CommTransport::Tcp}, OverlapModel{1.5, 0.3}).ok());
  }
}

TEST_CASE("core::throughput pods of one node talk through the kernel, not a NIC", "[core][throughput]") {
  // Two PyTorch jobs, 4 pods x 1 GPU each, placed by the default scheduler on one DGX-1: every
  // hop is a pod-network hop at NCCL's socket transport ceiling (2.4 GB/s), whatever the NIC.
  for (double nic_gbit : {1.0, 10.0, 100.0}) {
    auto path = pod_socket_path({{0}, {0}, {0}, {0}}, {nic_gbit});
    REQUIRE(path.ok());
    CHECK(path->transport == CommTransport::PodSockets);
    CHECK(path->hosts == 4);
    CHECK(path->bus_bandwidth_gbps == Approx(2.4));
  }
  auto path = pod_socket_path({{0}, {0}, {0}, {0}}, {10.0});
  REQUIRE(path.ok());
  // 6-9% above the earlier 408.2 / 1138.1 in measurements of this case (with the rate rounded to
  // 0.3, VGG16 at 429.4 within 1.3% of them, ResNet50 at 1166.2 more than 5% under). DDP's bucket
  // pipeline keeps an all-reduce in flight through nearly the whole backward pass here, so it
  // hides rate x backward, less the buckets' NCCL latency; at the calibration's unrounded rate
  // (0.33) both are inside the measurements' band less 5%.
  CHECK(estimate(job("vgg16", TrainingFramework::PyTorch), *path).samples_per_sec == Approx(433.914).epsilon(1e-5));
  CHECK(estimate(job("resnet50", TrainingFramework::PyTorch), *path).samples_per_sec == Approx(1187.12).epsilon(1e-5));
  CHECK(estimate(job("resnet50", TrainingFramework::PyTorch), *path).samples_per_sec >= 0.95 * 1138.1 * 1.09);
}
