// Facts and helpers shared by the NCCL topology XML export and import (see nccl_xml_common.h).
#include "formats/hardware/nccl_xml_common.h"

#include "util/markup.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdio>

namespace topsim::nccl_xml_detail {

std::optional<unsigned> gpu_device_id(std::string_view model) {
  for (const GpuDeviceId& entry : kGpuDeviceIds)
    if (entry.model == model) return entry.device_id;
  return std::nullopt;
}

CpuIdentity cpu_identity(CpuKind kind) {
  switch (kind) {
    case CpuKind::IntelBroadwell: return {"x86_64", "GenuineIntel", 6, 79};
    case CpuKind::IntelSkylake: return {"x86_64", "GenuineIntel", 6, 85};
    case CpuKind::IntelSapphireRapids: return {"x86_64", "GenuineIntel", 6, 143};
    case CpuKind::IntelEmeraldRapids: return {"x86_64", "GenuineIntel", 6, 207};
    case CpuKind::Amd: return {"x86_64", "AuthenticAMD", 23, 49};
    case CpuKind::Arm: return {"arm64", "", 0, 0};
    case CpuKind::Power9: return {"ppc64", "", 0, 0};
  }
  return {"x86_64", "GenuineIntel", 6, 85};
}

CpuKind intel_cpu_kind(int family_id, int model_id) {
  if (family_id != 6) return CpuKind::IntelBroadwell;
  if (model_id >= 0xCF) return CpuKind::IntelEmeraldRapids;
  if (model_id >= 0x8F) return CpuKind::IntelSapphireRapids;
  if (model_id >= 0x55) return CpuKind::IntelSkylake;
  return CpuKind::IntelBroadwell;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

std::optional<long long> parse_integer(std::string_view text) {
  int base = 10;
  if (starts_with(text, "0x") || starts_with(text, "0X")) {
    text.remove_prefix(2);
    base = 16;
  }
  long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// ---------------------------------------------------------------------------------------------
// CPU affinity: list form <-> cpumask form (formats in nccl_xml_common.h).

constexpr int kMaxCpuNumber = 1 << 16;  // bounds the masks built from untrusted text

std::optional<std::vector<int>> parse_cpu_list(std::string_view list) {
  std::vector<int> cpus;
  size_t pos = 0;
  while (!list.empty() && pos <= list.size()) {
    const size_t comma = std::min(list.find(',', pos), list.size());
    const std::string_view token = list.substr(pos, comma - pos);
    const size_t dash = token.find('-');
    const auto first = parse_integer(token.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : parse_integer(token.substr(dash + 1));
    if (!first || !last || *first < 0 || *last < *first || *last >= kMaxCpuNumber) return std::nullopt;
    for (long long cpu = *first; cpu <= *last; ++cpu) cpus.push_back(static_cast<int>(cpu));
    pos = comma + 1;
  }
  if (cpus.empty()) return std::nullopt;
  return cpus;
}

std::string format_cpu_list(const std::vector<int>& sorted_cpus) {
  std::string out;
  for (size_t i = 0; i < sorted_cpus.size();) {
    size_t j = i;
    while (j + 1 < sorted_cpus.size() && sorted_cpus[j + 1] == sorted_cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(sorted_cpus[i]);
    if (j > i) out += "-" + std::to_string(sorted_cpus[j]);
    i = j + 1;
  }
  return out;
}

std::string cpu_mask(const std::vector<int>& cpus) {
  std::vector<uint32_t> words(static_cast<size_t>(*std::max_element(cpus.begin(), cpus.end()) / 32 + 1), 0);
  for (int cpu : cpus) words[cpu / 32] |= 1u << (cpu % 32);
  std::string out;
  for (size_t i = words.size(); i-- > 0;) {
    char group[9];
    std::snprintf(group, sizeof group, "%08x", static_cast<unsigned>(words[i]));
    out += out.empty() ? "" : ",";
    out += group;
  }
  return out;
}

std::optional<std::string> cpu_list_from_mask(std::string_view mask) {
  std::vector<uint32_t> words;  // most significant group first
  for (size_t pos = 0; pos <= mask.size();) {
    const size_t comma = std::min(mask.find(',', pos), mask.size());
    const std::string_view group = mask.substr(pos, comma - pos);
    uint32_t word = 0;
    const auto [end, error] = std::from_chars(group.data(), group.data() + group.size(), word, 16);
    if (group.empty() || group.size() > 8 || error != std::errc() || end != group.data() + group.size()) return std::nullopt;
    words.push_back(word);
    pos = comma + 1;
  }
  if (words.size() * 32 > kMaxCpuNumber) return std::nullopt;
  std::vector<int> cpus;
  for (size_t w = 0; w < words.size(); ++w)
    for (int bit = 0; bit < 32; ++bit)
      if ((words[words.size() - 1 - w] >> bit) & 1u) cpus.push_back(static_cast<int>(w * 32) + bit);
  return format_cpu_list(cpus);
}

std::string escape_xml(std::string_view text) { return escape_markup(text); }

}  // namespace topsim::nccl_xml_detail
