#include <catch2/catch.hpp>
#include <fstream>

#include "core/builtin_models.h"
#include "formats/hardware/node_json.h"
#include "formats/hardware/node_source.h"
#include "tests/test_support.h"

using namespace topsim;

TEST_CASE("formats::load_node resolves <model|file>", "[formats]") {
  test::TempDir dir;
  SECTION("a built-in name gives that model") {
    NodeSourceInfo info;
    const Expected<NodeModel> model = load_node("dgx-a100", {}, &info);
    REQUIRE(model.ok());
    CHECK(model->name == "dgx-a100");
    CHECK(info.kind == NodeSourceKind::Builtin);
  }
  SECTION("a .json file is read as node JSON, errors prefixed with its path") {
    const std::string path = dir.file("node.json");
    std::ofstream(path) << node_to_json(*builtin_model("pcie-8gpu"));
    NodeSourceInfo info;
    const Expected<NodeModel> model = load_node(path, {}, &info);
    REQUIRE(model.ok());
    CHECK(model->gpus.size() == 8);
    CHECK(info.kind == NodeSourceKind::NodeJson);
    std::ofstream(path) << "{";
    CHECK_THAT(load_node(path).error().message, Catch::StartsWith(path + ":1:2: invalid JSON"));
  }
  SECTION("an unknown name suggests the closest built-in model and lists them all") {
    CHECK(load_node("dgx-1").error().message ==
          "unknown node model 'dgx-1' (not a built-in model nor a file); did you mean 'dgx1-v100'? "
          "built-in models: dgx1-v100, dgx-a100, hgx-h100, pcie-8gpu, dgx2-v100, dgx1-p100, dgx-a100-80g, hgx-h200, "
          "hgx-b200, pcie-p40, pcie2-p100-12g, pcie-l40s, pcie-l4, pcie-h100, gb200-nvl72-tray, hgx-b300, "
          "gb300-nvl72-tray");
    CHECK_THAT(load_node("zzzz").error().message,
               Catch::EndsWith("(not a built-in model nor a file); built-in models: dgx1-v100, dgx-a100, hgx-h100, "
                               "pcie-8gpu, dgx2-v100, dgx1-p100, dgx-a100-80g, hgx-h200, hgx-b200, pcie-p40, "
                               "pcie2-p100-12g, pcie-l40s, pcie-l4, pcie-h100, gb200-nvl72-tray, hgx-b300, gb300-nvl72-tray"));
  }
  SECTION("a missing file that looks like a path says so") {
    CHECK(load_node("x.json").error().message == "cannot open 'x.json': No such file or directory");
    CHECK(load_node(dir.path.string()).error().message == "cannot open '" + dir.path.string() + "': it is a directory");
  }
}
