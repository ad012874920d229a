// NCCL's collective schedules on a system's GPUs as the flows they put on
// the network, for a flow-level simulator (projection/flow_simulation.h)
// to time where links are shared. The closed forms of collective_cost.h
// price the same schedules on a network without contention; these are the
// same steps, spelled out flow by flow, so that the simulator sees which
// flows meet on a NIC, a GPU's link or a switch's uplink.
//
// A schedule is phases run one after another; a phase is flows that run at
// once, `repeats` times back to back (a ring's 2(p-1) steps move the same
// flows each step, so one step is simulated and counted 2(p-1) times).
// GPUs are numbered node-major: GPU i is GPU i % perNode of node i / perNode
// (collective_cost.h's placement), and a GPU reaches other nodes through
// NIC (its index in the node) % nics.
#pragma once

#include <vector>

#include "projection/system_model.h"

namespace dtb::core {

struct Flow {
  int from = 0;  // GPUs
  int to = 0;
  double bytes = 0;
};

struct FlowPhase {
  std::vector<Flow> flows;
  int repeats = 1;
};

struct FlowSchedule {
  std::vector<FlowPhase> phases;
  // Latency the phases do not carry: a pipelined tree's fill (below).
  double extraLatencyS = 0;
};

enum class CollectiveSchedule {
  kRingAllreduce,          // a ring through every GPU, a channel per NIC
  kTreeAllreduce,          // NCCL's double binary tree of nodes, a chain in each
  kHierarchicalAllreduce,  // reduce-scatter in the node, a ring of slices across, all-gather
  kRingReduceScatter,
  kRingAllgather,
};

// `bytes` is the whole array, as for collective_cost.h. Throws
// std::invalid_argument for a GPU count that fills no whole nodes.
//
// The tree is simulated in its pipeline's steady state: every edge of both
// trees (each carrying half the array, in every channel) sends up and down
// at once, which is where its bandwidth is decided; the pipeline's fill,
// 2(ceil(log2 nodes) a_node + (perNode - 1) a_gpu) in the closed form, is
// added as latency beyond the one hop the phase already pays.
FlowSchedule collectiveFlows(CollectiveSchedule schedule, double bytes, int gpus, const SystemModel& system);

// NCCL's double binary tree over `ranks` (nodes): rank r's parent in tree
// 0 or 1, -1 for the root. Tree 0 is a binary tree laid out in order (a
// rank's lowest set bit is its height); tree 1 mirrors it (an even count)
// or shifts it by one (an odd count), so that no rank is an inner node of
// both (NCCL 2.4, Jeaugey 2019).
int doubleTreeParent(int tree, int rank, int ranks);

}  // namespace dtb::core
