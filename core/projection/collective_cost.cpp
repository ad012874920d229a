#include "projection/collective_cost.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dtb::core {
namespace {

double ceilLog2(int n) { return n > 1 ? std::ceil(std::log2(static_cast<double>(n))) : 0; }

// The link a ring through every GPU sees at each step: across nodes NCCL
// runs a channel per NIC, each carrying its share of the array; a channel's
// hop inside a node shares the node's GPU link. The slower of the two paces
// every step, and a step waits on the slowest hop's latency (an inter-node
// one, once there are two nodes).
Link ringPath(const GpuPlacement& at, const SystemModel& system) {
  if (at.nodes == 1) return system.intraNode;
  return {system.interNode.latencyS,
          std::min(at.nics * system.interNode.bytesPerS, system.intraNode.bytesPerS)};
}

}  // namespace

double treeLatencyS(const GpuPlacement& at, const SystemModel& system) {
  return 2 * (ceilLog2(at.nodes) * system.interNode.latencyS + (at.perNode - 1) * system.intraNode.latencyS);
}

GpuPlacement placeGpus(int gpus, const SystemModel& system) {
  if (gpus < 1) throw std::invalid_argument("a projection needs at least 1 GPU, not " + std::to_string(gpus));
  if (gpus > system.gpusPerNode && gpus % system.gpusPerNode != 0) {
    throw std::invalid_argument(std::to_string(gpus) + " GPUs do not fill whole nodes of " +
                                std::to_string(system.gpusPerNode) + " (" + system.name + ")");
  }
  GpuPlacement at;
  at.perNode = std::min(gpus, system.gpusPerNode);
  at.nodes = gpus / at.perNode;
  at.nics = std::min(system.nicsPerNode, at.perNode);
  return at;
}

double ringAllreduceS(double bytes, int ranks, const Link& link) {
  if (ranks <= 1) return 0;
  const double p = ranks;
  return 2 * (p - 1) * link.latencyS + 2 * (p - 1) / p * bytes / link.bytesPerS;
}

double ringReduceScatterS(double bytes, int ranks, const Link& link) {
  if (ranks <= 1) return 0;
  const double p = ranks;
  return (p - 1) * link.latencyS + (p - 1) / p * bytes / link.bytesPerS;
}

double ringAllgatherS(double bytes, int ranks, const Link& link) {
  return ringReduceScatterS(bytes, ranks, link);
}

double treeAllreduceS(double bytes, int ranks, const Link& link) {
  if (ranks <= 1) return 0;
  return 2 * ceilLog2(ranks) * link.latencyS + 2 * bytes / link.bytesPerS;
}

AllreduceCost allreduceCost(double bytes, int gpus, const SystemModel& system) {
  const GpuPlacement at = placeGpus(gpus, system);
  AllreduceCost cost;
  cost.nodes = at.nodes;
  if (gpus == 1) {
    cost.best = "ring";
    return cost;
  }
  const Link& intra = system.intraNode;
  const Link& inter = system.interNode;
  const Link path = ringPath(at, system);
  const double pathBytesPerS = path.bytesPerS;
  cost.ringS = ringAllreduceS(bytes, gpus, path);
  // NCCL's tree: each rank sends about the array up and again down.
  cost.treeS = treeLatencyS(at, system) + 2 * bytes / pathBytesPerS;
  // Hierarchical: each GPU of a node all-reduces its 1/perNode slice with
  // the same GPU of every other node, the node's NICs shared among them.
  const Link perSlice{inter.latencyS,
                      inter.bytesPerS * std::min(1.0, static_cast<double>(at.nics) / at.perNode)};
  cost.hierarchicalS = ringReduceScatterS(bytes, at.perNode, intra) +
                       ringAllreduceS(bytes / at.perNode, at.nodes, perSlice) +
                       ringAllgatherS(bytes, at.perNode, intra);
  cost.pickCheapest();
  return cost;
}

void AllreduceCost::pickCheapest() {
  // A schedule must be cheaper by more than rounding to replace one before
  // it (within a node the hierarchical schedule is the ring, to the last bits).
  const auto cheaper = [](double a, double b) { return a < b * (1 - 1e-9); };
  best = "ring";
  bestS = ringS;
  if (cheaper(treeS, bestS)) {
    best = "tree";
    bestS = treeS;
  }
  if (cheaper(hierarchicalS, bestS)) {
    best = "hierarchical";
    bestS = hierarchicalS;
  }
}

double reduceScatterCostS(double bytes, int gpus, const SystemModel& system) {
  return ringReduceScatterS(bytes, gpus, ringPath(placeGpus(gpus, system), system));
}

double allgatherCostS(double bytes, int gpus, const SystemModel& system) {
  return ringAllgatherS(bytes, gpus, ringPath(placeGpus(gpus, system), system));
}

double allreduceBusBytesPerS(double bytes, double seconds, int ranks) {
  if (ranks <= 1 || seconds <= 0) return 0;
  return bytes / seconds * 2.0 * (ranks - 1) / ranks;
}

}  // namespace dtb::core
