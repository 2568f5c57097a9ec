// `kubectl get nodes -o json` read from text (parse_kube_nodes).
#include <catch2/catch.hpp>
#include <tuple>

#include "formats/hardware/kube_nodes.h"

using namespace topsim;

namespace {

std::string node(const std::string& name, const std::string& product, int gpus, const std::string& extra_labels = "") {
  return R"({"apiVersion": "v1", "kind": "Node", "metadata": {"name": ")" + name +
         R"(", "labels": {"nvidia.com/gpu.product": ")" + product + "\"" + extra_labels +
         R"(}}, "status": {"allocatable": {"cpu": "96", "nvidia.com/gpu": ")" + std::to_string(gpus) + "\"}}}";
}

std::string list(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ",") + item;
  return R"({"apiVersion": "v1", "kind": "List", "items": [)" + out + "]}";
}

}  // namespace

TEST_CASE("formats::kube_nodes: GPU nodes grouped by product, count and label", "[formats][kubernetes]") {
  SECTION("two products, one of them labelled for topology-aware scheduling") {
    const auto r = parse_kube_nodes(list({node("a", "Tesla-V100-SXM2-16GB", 8), node("b", "Tesla-V100-SXM2-16GB", 8),
                                          node("c", "NVIDIA-A100-SXM4-40GB", 8, R"(, "ack.node.gpu.schedule": "topology")")}),
                                    "nodes.json");
    REQUIRE(r.ok());
    REQUIRE(r->groups.size() == 2);
    CHECK(r->groups[0].model == "dgx1-v100");
    CHECK(r->groups[0].count == 2);
    CHECK(r->groups[0].nodes == std::vector<std::string>{"a", "b"});
    CHECK(r->groups[1].model == "dgx-a100");
    CHECK(r->groups[1].label == "topology");
    CHECK_THAT(kube_cluster_json(*r), Catch::Contains("\"dgx-a100\""));
  }
  SECTION("--map names the model of a product the catalog does not know") {
    const auto r = parse_kube_nodes(list({node("x", "Custom-GPU", 8)}), "nodes.json", {{"Custom-GPU", "dgx-a100"}});
    REQUIRE(r.ok());
    CHECK(r->groups.at(0).model == "dgx-a100");
  }
  SECTION("unknown products are listed together with how to map them") {
    const auto r = parse_kube_nodes(list({node("x", "Custom-GPU", 8), node("y", "Other-GPU", 4)}), "nodes.json");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("Custom-GPU") && Catch::Contains("Other-GPU") && Catch::Contains("--map"));
  }
  SECTION("malformed JSON is one line with the position") {
    const auto r = parse_kube_nodes("{\"items\": [", "nodes.json");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::StartsWith("nodes.json:"));
  }
}

TEST_CASE("formats::kube_nodes: a GPU quantity that is no count of whole devices is refused", "[formats][kubernetes]") {
  const auto with = [](const std::string& quantity) {
    return parse_kube_nodes(
        list(
            {R"({"kind": "Node", "metadata": {"name": "a", "labels": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB"}}, "status": {"allocatable": {"nvidia.com/gpu": )" +
             quantity + "}}}"}),
        "nodes.json");
  };
  for (const char* bad :
       {R"("8k")", R"("1e1")", R"("-8")", R"("0.5")", R"("99999999999999999999")", R"("")", "8", "8.0", "true"}) {
    INFO(bad);
    const auto r = with(bad);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::StartsWith("nodes.json: /items/0/status/allocatable/nvidia.com/gpu: "));
  }
  CHECK(with(R"("8")").ok());
}

TEST_CASE("formats::kube_nodes: fabric tiers from the topology labels clouds and NVIDIA set", "[formats][kubernetes]") {
  const std::string h100 = "NVIDIA-H100-80GB-HBM3";
  auto aws = [](const std::string& l2, const std::string& l3) {
    return R"(, "topology.k8s.aws/network-node-layer-1": "nn-1", "topology.k8s.aws/network-node-layer-2": ")" + l2 +
           R"(", "topology.k8s.aws/network-node-layer-3": ")" + l3 + "\"";
  };
  SECTION("AWS layers: nodes grouped by their place, levels lowest first with their labels, node names kept") {
    const auto r = parse_kube_nodes(list({node("a", h100, 8, aws("nn-2a", "nn-3a")), node("b", h100, 8, aws("nn-2a", "nn-3b")),
                                          node("c", h100, 8, aws("nn-2a", "nn-3a"))}),
                                    "nodes.json");
    REQUIRE(r.ok());
    CHECK(r->fabric_labels == std::vector<std::string>{"topology.k8s.aws/network-node-layer-1",
                                                       "topology.k8s.aws/network-node-layer-2",
                                                       "topology.k8s.aws/network-node-layer-3"});
    REQUIRE(r->groups.size() == 2);
    CHECK(r->groups[0].nodes == std::vector<std::string>{"a", "c"});
    CHECK(r->groups[0].places == std::vector<std::string>{"nn-1", "nn-2a", "nn-3a"});
    const std::string cluster = kube_cluster_json(*r);
    CHECK_THAT(cluster, Catch::Contains(R"("name": "network-node-layer-3",)"));
    CHECK(cluster.find("network-node-layer-3") < cluster.find("network-node-layer-1\","));  // lowest first
  }
  SECTION("an NVLink clique is the lowest level, with NVLink links; a caller's label joins the known ones") {
    const auto r = parse_kube_nodes(list({node("t0", "NVIDIA-GB200", 4, R"(, "nvidia.com/gpu.clique": "u.1", "rack": "r1")"),
                                          node("t1", "NVIDIA-GB200", 4, R"(, "nvidia.com/gpu.clique": "u.1", "rack": "r1")")}),
                                    "nodes.json", {{"NVIDIA-GB200", "hgx-b200"}}, {"rack"});
    REQUIRE(r.ok());
    CHECK(r->fabric_labels == std::vector<std::string>{"rack", "nvidia.com/gpu.clique"});
    CHECK_THAT(kube_cluster_json(*r), Catch::Contains(R"("links": "nvlink")"));
  }
  SECTION("a GPU node without a label the others carry is refused, naming it") {
    const auto r = parse_kube_nodes(list({node("a", h100, 8, aws("nn-2a", "nn-3a")), node("b", h100, 8)}), "nodes.json");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message ==
          "nodes.json: /items/1 (b)/metadata/labels: no topology.k8s.aws/network-node-layer-1 label, which the fabric's levels "
          "read (other GPU nodes carry it); label every GPU node or drop the level");
  }
}

TEST_CASE("formats::kube_nodes: nodes as YAML, as the FGD simulator and open-simulator write them", "[formats][kubernetes]") {
  SECTION("`kubectl get nodes -o yaml`: a List with items, read as -o json is") {
    const auto r = parse_kube_nodes(
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: a\n"
        "    labels: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB}\n"
        "  status: {allocatable: {nvidia.com/gpu: \"8\"}}\n",
        "nodes.yaml");
    REQUIRE(r.ok());
    CHECK(r->groups.at(0).model == "dgx-a100");
  }
  SECTION("a stream of Node documents, the card model label and alibabacloud.com/gpu-count") {
    const std::string node =
        "apiVersion: v1\nkind: Node\nmetadata:\n  labels: {alibabacloud.com/gpu-card-model: V100M16}\n"
        "  name: n\nstatus: {allocatable: {alibabacloud.com/gpu-count: '8', cpu: 64}}\n";
    std::string second = node;
    second.replace(second.find("name: n"), 7, "name: m");
    const auto r = parse_kube_nodes(node + "---\n" + second, "nodes.yaml");
    REQUIRE(r.ok());
    CHECK(r->groups.at(0).model == "dgx1-v100");
    CHECK(r->groups.at(0).count == 2);
  }
  SECTION("a card model's memory (alibabacloud.com/gpu-mem over the cards) must be the catalog card's") {
    const auto node = [](const std::string& memory) {
      return "kind: Node\nmetadata:\n  name: n\n  labels: {alibabacloud.com/gpu-card-model: V100}\nstatus: {allocatable: "
             "{alibabacloud.com/gpu-count: '8', alibabacloud.com/gpu-mem: " +
             memory + "}}\n";
    };
    CHECK(parse_kube_nodes(node("130240Mi"), "nodes.yaml").ok());  // 15.9 GiB per card: the 16 GB V100
    const auto r = parse_kube_nodes(node("260480Mi"), "nodes.yaml");
    REQUIRE_FALSE(r.ok());
    CHECK(
        r.error().message ==
        "nodes.yaml (n): alibabacloud.com/gpu-mem 260480Mi is 31.8 GiB per card over 8 cards, but 'V100' reads as the catalog's "
        "v100 (16 GB): map the product with --map 'PRODUCT=MODEL' or label the node with its nvidia.com/gpu.product");
  }
  SECTION("the nvidia.com/gpu.count label counts GPUs when nothing is allocatable, noted") {
    const auto r = parse_kube_nodes(
        "kind: Node\nmetadata:\n  name: h\n  labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, "
        "nvidia.com/gpu.count: '8'}\n",
        "nodes.yaml");
    REQUIRE(r.ok());
    CHECK(r->groups.at(0).model == "hgx-h100");
    REQUIRE(r->notes.size() == 2);  // and the node's memory, which it does not state
    CHECK_THAT(r->notes.front(), Catch::Contains("nvidia.com/gpu.count"));
  }
  SECTION("errors name the node without a doubled slash; a node without a product label says which label to add") {
    auto r = parse_kube_nodes("kind: Node\nstatus: {allocatable: {nvidia.com/gpu: '1'}}\n", "nodes.yaml");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message == "nodes.yaml: /metadata/name: missing");
    r = parse_kube_nodes("kind: Node\nmetadata: {name: g}\nstatus: {allocatable: {nvidia.com/gpu: '1'}}\n", "nodes.yaml");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message,
               Catch::StartsWith("nodes.yaml (g): 1 GPUs but no GPU product label: add nvidia.com/gpu.product"));
    r = parse_kube_nodes(
        "kind: Node\nmetadata: {name: a}\n---\nkind: Node\nmetadata: {name: b, labels: {nvidia.com/gpu.count: "
        "many}}\n",
        "nodes.yaml");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message ==
          "nodes.yaml: document 2: /metadata/labels/nvidia.com/gpu.count: 'many' is not a count of whole devices (0-128)");
  }
}

TEST_CASE("formats::kube_nodes: the network between nodes from RDMA devices and NIC labels", "[formats][kubernetes]") {
  const auto with = [](const std::string& extra_allocatable, const std::string& extra_labels) {
    return R"({"kind": "Node", "metadata": {"name": "a", "labels": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3")" +
           extra_labels + R"(}}, "status": {"allocatable": {"nvidia.com/gpu": "8")" + extra_allocatable + "}}}";
  };
  SECTION("every GPU node with an rdma/* resource, nvidia.com/hostdev or a Mellanox NIC label: ib, saying which") {
    for (const auto& [allocatable, labels, evidence] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {R"(, "rdma/rdma_shared_device_a": "63")", "", "rdma/rdma_shared_device_a"},
             {R"(, "nvidia.com/hostdev": "8")", "", "nvidia.com/hostdev"},
             {"", R"(, "feature.node.kubernetes.io/pci-15b3.present": "true")", "pci-15b3"}}) {
      const auto r = parse_kube_nodes(list({with(allocatable, labels)}), "nodes.json");
      REQUIRE(r.ok());
      CHECK(r->transport == "ib");
      CHECK_THAT(r->transport_reason, Catch::Contains(evidence) && Catch::Contains("1 of 1 GPU nodes"));
      CHECK_THAT(kube_cluster_json(*r), Catch::Contains("\"transport\": \"ib\""));
    }
  }
  SECTION("RDMA on only some GPU nodes, or none: tcp, saying why; --network decides") {
    std::string b = with("", "");
    b.replace(b.find("\"a\""), 3, "\"b\"");
    auto r = parse_kube_nodes(list({with(R"(, "rdma/hca": "1")", ""), b}), "nodes.json");
    REQUIRE(r.ok());
    CHECK(r->transport == "tcp");
    CHECK_THAT(r->transport_reason, Catch::Contains("on only 1 of 2 GPU nodes"));
    r = parse_kube_nodes(list({b}), "nodes.json");
    CHECK(r->transport == "tcp");
    r = parse_kube_nodes(list({b}), "nodes.json", {}, {}, "roce");
    CHECK(r->transport == "roce");
    CHECK_THAT(r->transport_reason, Catch::StartsWith("as given"));
  }
}

TEST_CASE("formats::kube_nodes: host memory from allocatable memory, nodes far apart in groups of their own",
          "[formats][kubernetes]") {
  const auto with = [](const std::string& name, const std::string& status) {
    return R"({"kind": "Node", "metadata": {"name": ")" + name +
           R"(", "labels": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}}, "status": )" + status + "}";
  };
  const auto memory = [&](const std::string& name, const std::string& quantity) {
    return with(name, R"({"allocatable": {"memory": ")" + quantity + R"(", "nvidia.com/gpu": "8"}})");
  };
  SECTION("allocatable before capacity; whole MiB; a group takes its smallest node's") {
    const auto r = parse_kube_nodes(
        list(
            {with(
                 "a",
                 R"({"capacity": {"memory": "2113515360Ki"}, "allocatable": {"memory": "2113412960Ki", "nvidia.com/gpu": "8"}})"),
             memory("b", "2063937Mi"), memory("c", "900Gi"), memory("d", "2Ti")}),
        "nodes.json");
    REQUIRE(r.ok());
    REQUIRE(r->groups.size() == 2);
    CHECK(r->groups[0].nodes == std::vector<std::string>{"a", "b", "d"});
    CHECK(r->groups[0].host_memory_gib == 2063879.0 / 1024);  // a's allocatable: 2113412960 Ki is 2063879.84 MiB
    CHECK(r->groups[0].host_memory_max_gib == 2048);
    CHECK(r->groups[1].nodes == std::vector<std::string>{"c"});
    CHECK(r->groups[1].host_memory_gib == 900);
    const std::string cluster = kube_cluster_json(*r);
    CHECK_THAT(cluster, Catch::Contains(R"("host_memory_gib": 900.0)"));
    CHECK(r->notes.empty());
  }
  SECTION("capacity when nothing is allocatable; a node stating none is noted and joins its group") {
    const auto r = parse_kube_nodes(list({with("a", R"({"capacity": {"memory": "1Ti"}, "allocatable": {"nvidia.com/gpu": "8"}})"),
                                          node("b", "NVIDIA-H100-80GB-HBM3", 8)}),
                                    "nodes.json");
    REQUIRE(r.ok());
    REQUIRE(r->groups.size() == 1);
    CHECK(r->groups[0].host_memory_gib == 1024);
    REQUIRE(r->notes.size() == 1);
    CHECK_THAT(r->notes[0], Catch::StartsWith("1 GPU node states no memory"));
  }
  SECTION("no memory anywhere: the model's figure, none written") {
    const auto r = parse_kube_nodes(list({node("a", "NVIDIA-H100-80GB-HBM3", 8)}), "nodes.json");
    REQUIRE(r.ok());
    CHECK(r->groups[0].host_memory_gib == 0);
    CHECK_THAT(kube_cluster_json(*r), !Catch::Contains("host_memory_gib"));
  }
  SECTION("a quantity that is no node's memory is refused naming its field") {
    const auto error = [&](const std::string& quantity) {
      const auto r = parse_kube_nodes(list({memory("a", quantity)}), "nodes.json");
      REQUIRE_FALSE(r.ok());
      return r.error().message;
    };
    CHECK(error("lots") == "nodes.json: /items/0/status/allocatable/memory: 'lots' is not a Kubernetes quantity");
    CHECK_THAT(error("512Ki"), Catch::EndsWith("'512Ki' is less than 1 MiB: not a node's memory"));
    CHECK_THAT(error("-2Ti"), Catch::EndsWith("'-2Ti' is less than 1 MiB: not a node's memory"));
    CHECK_THAT(error("65Ti"), Catch::EndsWith("'65Ti' is above the 65536 GiB a node may have"));
    const auto number =
        parse_kube_nodes(list({with("a", R"({"allocatable": {"memory": 1024, "nvidia.com/gpu": "8"}})")}), "nodes.json");
    REQUIRE_FALSE(number.ok());
    CHECK_THAT(number.error().message, Catch::Contains("/status/allocatable/memory: must be a string quantity"));
  }
}
