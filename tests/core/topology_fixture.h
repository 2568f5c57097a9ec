// The analysed topology of a built-in node model, for core tests.
#pragma once

#include <catch2/catch.hpp>
#include <utility>

#include "core/builtin_models.h"
#include "core/topology.h"

inline topsim::Topology builtin(const char* name) {
  auto model = topsim::builtin_model(name);
  REQUIRE(model);
  auto topology = topsim::Topology::build(*model);
  REQUIRE(topology.ok());
  return std::move(topology).value();
}
