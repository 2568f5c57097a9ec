// The catalog index of a model the test names (REQUIREd to exist).
#pragma once

#include <catch2/catch.hpp>

#include "core/hardware.h"
#include "core/model_catalog.h"

namespace topsim {

inline int model(const char* name) {
  auto index = find_model(name);
  REQUIRE(index.ok());
  return *index;
}

// The catalog GPU a test names (REQUIREd to exist).
inline const GpuModel* gpu(const char* name) {
  const GpuModel* found = find_gpu_model(name);
  REQUIRE(found != nullptr);
  return found;
}

}  // namespace topsim
