// What collectives cost on a system where links are shared, by SimGrid's
// flow-level simulation of NCCL's schedules (collective_flows.h's flows on
// flow_platform.h's platform, simulated by simgrid_module.h): the second
// network model of `dtbench project` (--network-model simgrid), beside the
// closed forms of collective_cost.h, which it gives back where no link is
// shared.
//
// A schedule's flows all scale with the array, so its time is a line in the
// array's size (exactly so where its flows' latencies are equal, and within
// their difference otherwise): each schedule is simulated at two sizes,
// once per GPU count, and priced by that line for every size after. Each
// simulation runs in a child process (SimGrid keeps one engine per
// process), bounded in time, and in the flows it may be handed.
#pragma once

#include <chrono>
#include <cstddef>
#include <vector>

#include "projection/collective_cost.h"
#include "projection/collective_flows.h"
#include "projection/step_simulation.h"
#include "projection/system_model.h"

namespace dtb::core {

constexpr size_t kMaxSimulatedFlows = 1'000'000;
constexpr std::chrono::seconds kSimulationLimit{300};

// t(S) = latency + S x seconds a byte.
struct CostLine {
  double latencyS = 0;
  double secondsPerByte = 0;
  double at(double bytes) const { return latencyS + bytes * secondsPerByte; }
};

// NCCL's schedules on `gpus` GPUs of a system, as SimGrid timed them.
struct SimulatedNetwork {
  int gpus = 1;
  int nodes = 1;
  CostLine ring, tree, hierarchical, reduceScatter, allgather;
};

// Each schedule's seconds on `gpus` GPUs of `system`, simulated one after
// another on an idle network, in a child process. Throws
// std::invalid_argument for more than kMaxSimulatedFlows flows,
// std::runtime_error when the simulation fails or outlasts `limit` (this
// dtbench built without SimGrid included, saying so).
std::vector<double> simulateSchedules(const SystemModel& system, int gpus,
                                      const std::vector<FlowSchedule>& schedules,
                                      std::chrono::milliseconds limit = kSimulationLimit);

// Each schedule simulated at two sizes (as simulateSchedules; a count that
// fills no whole nodes is std::invalid_argument too).
SimulatedNetwork simulateNetwork(const SystemModel& system, int gpus,
                                 std::chrono::milliseconds limit = kSimulationLimit);

// This dtbench has SimGrid: its module is found (simgrid_loader.h).
bool simgridAvailable();

// As allreduceCost() and the step simulation's costs, from the simulation.
AllreduceCost allreduceCost(double bytes, const SimulatedNetwork& network);
CollectiveCosts collectiveCosts(const SimulatedNetwork& network, bool ringOnly);

}  // namespace dtb::core
