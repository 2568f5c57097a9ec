// Shared helpers of the NCCL topology XML tests (test_nccl_xml.cpp, test_nccl_xml_hint.cpp).
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "core/topology.h"
#include "formats/hardware/nccl_xml.h"

namespace topsim::nccl_xml_test {

inline Topology build(const NodeModel& model) {
  auto topo = Topology::build(model);
  INFO((topo.ok() ? std::string() : topo.error().message));
  REQUIRE(topo.ok());
  return std::move(topo).value();
}

inline NodeModel import_ok(const std::string& text, const std::string& source) {
  auto imported = parse_nccl_xml(text, source);
  INFO((imported.ok() ? std::string() : imported.error().message));
  REQUIRE(imported.ok());
  return std::move(imported).value();
}

inline std::string import_error(const std::string& text, const std::string& source) {
  auto imported = parse_nccl_xml(text, source);
  REQUIRE_FALSE(imported.ok());
  return imported.error().message;
}

inline std::string two_gpu_xml(const std::string& count = "2", const std::string& target = "0000:03:00.0",
                               const std::string& width = "16", const std::string& dev1 = "1") {
  return "<system version=\"1\">\n"
         "  <cpu numaid=\"0\" affinity=\"0000ffff\" arch=\"x86_64\" vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"85\">\n"
         "    <pci busid=\"0000:01:00.0\" class=\"0x060400\" link_speed=\"8.0 GT/s PCIe\" link_width=\"16\">\n"
         "      <pci busid=\"0000:02:00.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x1db1\" link_speed=\"8.0 GT/s PCIe\" "
         "link_width=\"16\">\n"
         "        <gpu dev=\"0\" sm=\"70\" rank=\"0\" gdr=\"1\">\n"
         "          <nvlink target=\"" +
         target + "\" count=\"" + count +
         "\" tclass=\"0x030200\"/>\n"
         "        </gpu>\n"
         "      </pci>\n"
         "      <pci busid=\"0000:03:00.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x1db1\" link_speed=\"8.0 GT/s PCIe\" "
         "link_width=\"" +
         width +
         "\">\n"
         "        <gpu dev=\"" +
         dev1 +
         "\" sm=\"70\" rank=\"1\" gdr=\"1\">\n"
         "          <nvlink target=\"0000:02:00.0\" count=\"2\" tclass=\"0x030200\"/>\n"
         "        </gpu>\n"
         "      </pci>\n"
         "    </pci>\n"
         "  </cpu>\n"
         "</system>\n";
}

}  // namespace topsim::nccl_xml_test
