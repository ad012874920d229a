// A system of nodes of 4 GPUs and 4 NICs for the projection tests, its two
// kinds of link with different latencies (so that a route or formula paying
// the wrong one shows).
#pragma once

#include "projection/system_model.h"

namespace dtb::core::test_systems {

inline SystemModel fourGpuNodes() {
  SystemModel s;
  s.name = "test";
  s.gpusPerNode = 4;
  s.nicsPerNode = 4;
  s.intraNode = {1e-6, 300e9};
  s.interNode = {5e-6, 25e9};
  return s;
}

}  // namespace dtb::core::test_systems
