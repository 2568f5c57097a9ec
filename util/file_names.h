// Names from inputs that become file or folder names (a scenario's `name` -> results/<name>/):
// one plain component, never a path.
#pragma once

#include <string>
#include <string_view>

namespace topsim {

inline constexpr size_t kMaxFileNameBytes = 100;

// `name` made usable: separators and control bytes become '_', leading dots and dashes go, at
// most 100 bytes (cut at a UTF-8 boundary); "unnamed" when nothing is left.
std::string safe_file_name(std::string_view name);

}  // namespace topsim
