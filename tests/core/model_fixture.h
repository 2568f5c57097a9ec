// The catalog index of a model the test names (REQUIREd to exist).
#pragma once

#include <catch2/catch.hpp>

#include "core/model_catalog.h"

namespace topsim {

inline int model(const char* name) {
  auto index = find_model(name);
  REQUIRE(index.ok());
  return *index;
}

}  // namespace topsim
