// A network measured instead of described: the all-reduce fit of a
// `dtbench comm` sweep in the store (the collective_fit view: t = a + bus
// bytes / B at p ranks), as the link between two ranks it implies
// (linkFromAllreduceFit) on a system of one rank a node. What checks a
// projection against runs of the same backend on the same network, here on
// tools/cluster.sh's emulated ones.
#pragma once

#include <cstdint>
#include <string>

#include "projection/system_model.h"
#include "store/database.h"

namespace dtb::core {

struct FittedNetwork {
  int64_t runId = 0;
  std::string backend;
  std::string network;  // the sweep's emulated network (run_network.profile), "" for the hosts' own
  int ranks = 0;        // the sweep's
  double latencyS = 0, busBytesPerS = 0;
  SystemModel system;  // one rank a node, every hop the fitted link
};

// Throws ProfileError (stored_profile.h) naming the run when it is no sweep
// with an all-reduce fit.
FittedNetwork readFittedNetwork(Database& db, int64_t sweepRunId);

}  // namespace dtb::core
