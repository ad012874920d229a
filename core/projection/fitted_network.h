// A network measured instead of described: the fits of a `dtbench comm`
// sweep in the store (the collective_fit view: t = a + bus bytes / B at p
// ranks), each as the link between two ranks it implies for the backend's
// ring (alpha_beta_link.h), on a system of one rank a node. The all-reduce's
// fit is needed; a reduce-scatter's and an all-gather's, where the sweep has
// them, price those collectives (ZeRO's) by their own link, since a
// backend's half ring need not cost half its all-reduce. What checks a
// projection against runs of the same backend on the same network, here on
// tools/cluster.sh's emulated ones.
#pragma once

#include <cstdint>
#include <string>

#include "projection/alpha_beta_link.h"
#include "projection/step_simulation.h"
#include "projection/system_model.h"
#include "store/database.h"

namespace dtb::core {

struct FittedNetwork {
  int64_t runId = 0;
  std::string backend;
  std::string network;  // the sweep's emulated network (run_network.profile), "" for the hosts' own
  int ranks = 0;        // the sweep's
  double latencyS = 0, busBytesPerS = 0;  // the all-reduce's fit
  SystemModel system;                     // one rank a node, every hop the all-reduce's link
  Link reduceScatterLink, allgatherLink;  // their own fits' links, else the all-reduce's
  std::string ownFits;  // the ops with a fit of their own besides the all-reduce, "" if none
};

// Throws ProfileError (stored_profile.h) naming the run when it is no sweep
// with an all-reduce fit.
FittedNetwork readFittedNetwork(Database& db, int64_t sweepRunId);

// The step simulation's costs on `ranks` ranks of the fitted network: each
// collective a ring over its own link.
CollectiveCosts fittedCosts(const FittedNetwork& network, int ranks);

}  // namespace dtb::core
