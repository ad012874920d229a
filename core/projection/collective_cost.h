// What a collective costs on a system of G GPUs, by closed-form alpha-beta
// models of the schedules NCCL runs (ANCHORS.md: ring all-reduce
// 2(p-1)a + 2(p-1)/p S b). The fast path of a projection to many GPUs
// (issue 37): no contention beyond what the formulas name, no protocol
// switch (NCCL's LL/LL128/Simple), reductions at memory speed (their
// gamma term left out: a GPU adds far faster than a link carries).
//
// S is always the whole array in bytes, as nccl-tests counts it: the
// all-reduced buffer, or the gathered output of an all-gather.
#pragma once

#include <string>
#include <vector>

#include "projection/alpha_beta_link.h"
#include "projection/system_model.h"

namespace dtb::core {

// Where `gpus` GPUs sit on `system`: whole nodes, or fewer than one node
// (GPU i is GPU i % perNode of node i / perNode). Throws
// std::invalid_argument for a count that fills no whole nodes.
struct GpuPlacement {
  int nodes = 1;
  int perNode = 1;
  int nics = 1;  // the NICs a node's GPUs use: min(NICs a node, perNode)
};
GpuPlacement placeGpus(int gpus, const SystemModel& system);

// NCCL's tree's latency on that placement: a chain through each node's GPUs
// and a double binary tree of nodes, up then down, pipelined:
// 2 (ceil(log2 nodes) a_node + (perNode - 1) a_gpu).
double treeLatencyS(const GpuPlacement& at, const SystemModel& system);

// On one flat set of p ranks joined by `link`.
double ringAllreduceS(double bytes, int ranks, const Link& link);
// Reduce-scatter and all-gather: half a ring all-reduce each.
double ringReduceScatterS(double bytes, int ranks, const Link& link);
double ringAllgatherS(double bytes, int ranks, const Link& link);
// NCCL's double binary tree (NCCL 2.4): a reduce up and a broadcast down,
// pipelined, each rank sending about S in each: 2 ceil(log2 p) a + 2 S b.
double treeAllreduceS(double bytes, int ranks, const Link& link);

// All-reduce across `gpus` GPUs of `system` (gpus a multiple of its GPUs per
// node, or fewer than one node), by each schedule NCCL has for it.
struct AllreduceCost {
  int nodes = 1;             // the nodes the GPUs fill
  double ringS = 0;          // one ring through every GPU, a channel per NIC
  double treeS = 0;          // chains within nodes, a double binary tree across them
  double hierarchicalS = 0;  // reduce-scatter in the node, all-reduce across, all-gather in the node
  std::string best;          // the cheapest of the three ("ring", "tree", "hierarchical")
  double bestS = 0;
  // Sets best and bestS from the three, as NCCL's tuner takes the cheapest.
  void pickCheapest();
};
AllreduceCost allreduceCost(double bytes, int gpus, const SystemModel& system);

// Reduce-scatter and all-gather across `gpus` GPUs of `system`: NCCL runs
// them as rings only, through every GPU, a channel per NIC across nodes (as
// the all-reduce's ring). `bytes` is the whole array (the reduce-scatter's
// input, the all-gather's output).
double reduceScatterCostS(double bytes, int gpus, const SystemModel& system);
double allgatherCostS(double bytes, int gpus, const SystemModel& system);

// nccl-tests' figures for an all-reduce of `bytes` in `seconds` on `ranks`:
// algbw = S / t, busbw = algbw x 2(p - 1) / p (bytes per second).
double allreduceBusBytesPerS(double bytes, double seconds, int ranks);

}  // namespace dtb::core
