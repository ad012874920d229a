#include "projection/collective_flows.h"

#include <algorithm>

#include "projection/collective_cost.h"

namespace dtb::core {
namespace {

int gpuAt(const GpuPlacement& at, int node, int local) { return node * at.perNode + local; }

// Channels across nodes: one per NIC, as NCCL opens (each with its share of
// the array); within one node one does (they would share its links anyway).
int channels(const GpuPlacement& at) { return at.nodes > 1 ? at.nics : 1; }

// One step of a ring through every GPU, per channel: node after node, the
// GPUs of each node in an order rotated by the channel, so that each
// channel leaves and enters a node at GPUs of their own NICs.
FlowPhase ringStep(const GpuPlacement& at, double bytes, int repeats) {
  FlowPhase step;
  step.repeats = repeats;
  const int gpus = at.nodes * at.perNode;
  const double each = bytes / (channels(at) * static_cast<double>(gpus));
  for (int c = 0; c < channels(at); ++c) {
    std::vector<int> order;
    for (int node = 0; node < at.nodes; ++node) {
      for (int j = 0; j < at.perNode; ++j) order.push_back(gpuAt(at, node, (c + j) % at.perNode));
    }
    for (int i = 0; i < gpus; ++i) step.flows.push_back({order[i], order[(i + 1) % gpus], each});
  }
  return step;
}

// One step of a ring among each node's GPUs, every node at once: a step of
// reduce-scatter or all-gather of `bytes` within the node.
FlowPhase inNodeRingStep(const GpuPlacement& at, double bytes) {
  FlowPhase step;
  step.repeats = at.perNode - 1;
  for (int node = 0; node < at.nodes; ++node) {
    for (int j = 0; j < at.perNode; ++j)
      step.flows.push_back({gpuAt(at, node, j), gpuAt(at, node, (j + 1) % at.perNode), bytes / at.perNode});
  }
  return step;
}

FlowSchedule hierarchical(const GpuPlacement& at, double bytes) {
  FlowSchedule s;
  if (at.perNode > 1) s.phases.push_back(inNodeRingStep(at, bytes));
  if (at.nodes > 1) {
    // GPU i of every node all-reduces its slice with GPU i of the others.
    FlowPhase step;
    step.repeats = 2 * (at.nodes - 1);
    const double slice = bytes / at.perNode;
    for (int i = 0; i < at.perNode; ++i) {
      for (int node = 0; node < at.nodes; ++node)
        step.flows.push_back({gpuAt(at, node, i), gpuAt(at, (node + 1) % at.nodes, i), slice / at.nodes});
    }
    s.phases.push_back(step);
  }
  if (at.perNode > 1) s.phases.push_back(inNodeRingStep(at, bytes));
  return s;
}

void both(FlowPhase& phase, int a, int b, double bytes) {
  phase.flows.push_back({a, b, bytes});
  phase.flows.push_back({b, a, bytes});
}

FlowSchedule tree(const GpuPlacement& at, double bytes, const SystemModel& system) {
  FlowPhase phase;
  const int n = channels(at);
  for (int c = 0; c < n; ++c) {
    // The chain in each node, from the channel's head (the GPU whose NIC
    // the channel's trees use): both trees' halves pass along it.
    for (int node = 0; node < at.nodes; ++node) {
      for (int j = 1; j < at.perNode; ++j) {
        both(phase, gpuAt(at, node, (c + j) % at.perNode), gpuAt(at, node, (c + j - 1) % at.perNode),
             bytes / n);
      }
    }
    for (int t = 0; t < 2 && at.nodes > 1; ++t) {
      for (int node = 0; node < at.nodes; ++node) {
        const int parent = doubleTreeParent(t, node, at.nodes);
        if (parent >= 0) both(phase, gpuAt(at, node, c), gpuAt(at, parent, c), bytes / (2.0 * n));
      }
    }
  }
  FlowSchedule s;
  if (phase.flows.empty()) return s;
  s.phases.push_back(phase);
  const double paid = at.nodes > 1 ? system.interNode.latencyS : system.intraNode.latencyS;
  s.extraLatencyS = std::max(0.0, treeLatencyS(at, system) - paid);
  return s;
}

// NCCL's binary tree: a rank's height is its lowest set bit; its parent the
// rank above it at the next height, or the one below when that is past the end.
int binaryTreeParent(int rank, int ranks) {
  if (rank == 0) return -1;
  int bit = 1;
  while ((rank & bit) == 0) bit <<= 1;
  const int up = (rank ^ bit) | (bit << 1);
  return up < ranks ? up : (rank ^ bit);
}

}  // namespace

int doubleTreeParent(int tree, int rank, int ranks) {
  if (tree == 0) return binaryTreeParent(rank, ranks);
  if (ranks % 2 == 1) {  // shifted by one
    const int parent = binaryTreeParent((rank - 1 + ranks) % ranks, ranks);
    return parent < 0 ? -1 : (parent + 1) % ranks;
  }
  const int parent = binaryTreeParent(ranks - 1 - rank, ranks);  // mirrored
  return parent < 0 ? -1 : ranks - 1 - parent;
}

FlowSchedule collectiveFlows(CollectiveSchedule schedule, double bytes, int gpus, const SystemModel& system) {
  const GpuPlacement at = placeGpus(gpus, system);
  if (gpus == 1) return {};
  switch (schedule) {
    case CollectiveSchedule::kRingAllreduce:
      return {{ringStep(at, bytes, 2 * (gpus - 1))}};
    case CollectiveSchedule::kRingReduceScatter:
    case CollectiveSchedule::kRingAllgather:
      return {{ringStep(at, bytes, gpus - 1)}};
    case CollectiveSchedule::kHierarchicalAllreduce:
      return hierarchical(at, bytes);
    case CollectiveSchedule::kTreeAllreduce:
      return tree(at, bytes, system);
  }
  return {};
}

}  // namespace dtb::core
