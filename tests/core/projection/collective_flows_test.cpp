// NCCL's schedules spelled out as flows: the trees are trees, and each
// schedule moves what its closed form says each GPU sends.
#include "projection/collective_flows.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>

#include "four_gpu_nodes.h"

namespace dtb::core {
namespace {

using test_systems::fourGpuNodes;

// Bytes each GPU sends in one repeat of `phase`.
std::map<int, double> sentPerGpu(const FlowPhase& phase) {
  std::map<int, double> sent;
  for (const Flow& f : phase.flows) sent[f.from] += f.bytes;
  return sent;
}

TEST(CollectiveFlows, TheDoubleBinaryTreesAreTreesWhoseInnerRanksDiffer) {
  for (int ranks = 1; ranks <= 70; ++ranks) {
    std::map<int, int> innerIn;  // rank -> trees it has children in
    for (int tree = 0; tree < 2; ++tree) {
      int roots = 0;
      std::map<int, int> children;
      for (int r = 0; r < ranks; ++r) {
        const int parent = doubleTreeParent(tree, r, ranks);
        if (parent < 0) {
          ++roots;
          continue;
        }
        ASSERT_LT(parent, ranks);
        ASSERT_NE(parent, r);
        ++children[parent];
        int up = r, hops = 0;  // the root is reached, no cycle
        while (doubleTreeParent(tree, up, ranks) >= 0 && hops++ < ranks)
          up = doubleTreeParent(tree, up, ranks);
        ASSERT_LE(hops, ranks) << "a cycle in tree " << tree << " of " << ranks;
      }
      EXPECT_EQ(roots, 1) << ranks << " ranks, tree " << tree;
      for (const auto& [rank, n] : children) {
        EXPECT_LE(n, 2) << "rank " << rank << " of " << ranks << " in tree " << tree;
        ++innerIn[rank];
      }
    }
    // NCCL's point: a rank sends to children in one tree at most (so each
    // sends about 2S in all), but for one rank where the count is odd.
    int inBoth = 0;
    for (const auto& [rank, trees] : innerIn) inBoth += trees == 2 ? 1 : 0;
    EXPECT_LE(inBoth, ranks % 2 == 1 ? 1 : 0) << ranks << " ranks";
  }
}

TEST(CollectiveFlows, ARingStepSendsEachGpusShareOnceOverItsChannels) {
  const SystemModel system = fourGpuNodes();
  const double bytes = 64e6;
  for (int gpus : {2, 4, 8, 32}) {
    const FlowSchedule ring = collectiveFlows(CollectiveSchedule::kRingAllreduce, bytes, gpus, system);
    ASSERT_EQ(ring.phases.size(), 1u);
    EXPECT_EQ(ring.phases[0].repeats, 2 * (gpus - 1));
    for (const auto& [gpu, sent] : sentPerGpu(ring.phases[0])) EXPECT_DOUBLE_EQ(sent, bytes / gpus) << gpu;
    const FlowSchedule half = collectiveFlows(CollectiveSchedule::kRingReduceScatter, bytes, gpus, system);
    EXPECT_EQ(half.phases[0].repeats, gpus - 1);
  }
}

TEST(CollectiveFlows, EachChannelCrossesBetweenNodesOnItsOwnNics) {
  // 2 nodes of 4 GPUs and 4 NICs: 4 channels, each leaving a node from a
  // different GPU (so NIC) and entering at a different one.
  const FlowSchedule ring = collectiveFlows(CollectiveSchedule::kRingAllreduce, 1e6, 8, fourGpuNodes());
  std::set<int> leaving, entering;
  int crossings = 0;
  for (const Flow& f : ring.phases[0].flows) {
    if (f.from / 4 == f.to / 4) continue;
    ++crossings;
    if (f.from / 4 == 0) {
      leaving.insert(f.from % 4);
      entering.insert(f.to % 4);
    }
  }
  EXPECT_EQ(crossings, 8);  // 4 channels x 2 node boundaries of the ring
  EXPECT_EQ(leaving.size(), 4u);
  EXPECT_EQ(entering.size(), 4u);
}

TEST(CollectiveFlows, HierarchicalIsInNodeRingsAroundARingOfSlices) {
  const double bytes = 64e6;
  const FlowSchedule h =
      collectiveFlows(CollectiveSchedule::kHierarchicalAllreduce, bytes, 16, fourGpuNodes());
  ASSERT_EQ(h.phases.size(), 3u);
  EXPECT_EQ(h.phases[0].repeats, 3);  // reduce-scatter among a node's 4
  EXPECT_EQ(h.phases[1].repeats, 6);  // all-reduce of the slices among 4 nodes
  EXPECT_EQ(h.phases[2].repeats, 3);  // all-gather
  for (const auto& [gpu, sent] : sentPerGpu(h.phases[0])) EXPECT_DOUBLE_EQ(sent, bytes / 4);
  for (const Flow& f : h.phases[1].flows) {
    EXPECT_NE(f.from / 4, f.to / 4);  // across nodes only, GPU i to GPU i
    EXPECT_EQ(f.from % 4, f.to % 4);
    EXPECT_DOUBLE_EQ(f.bytes, bytes / 4 / 4);
  }
}

TEST(CollectiveFlows, TheTreeSendsAboutTwiceTheArrayFromEachNode) {
  // Its steady state: a node inner in one tree sends S/2 up and S/2 to each
  // of two children there, and S/2 up the other: 2S over its NICs, the
  // closed form's 2S/B. The pipeline's fill is the rest of its latency.
  const SystemModel system = fourGpuNodes();
  const double bytes = 64e6;
  const int gpus = 4 * 16;
  const FlowSchedule tree = collectiveFlows(CollectiveSchedule::kTreeAllreduce, bytes, gpus, system);
  ASSERT_EQ(tree.phases.size(), 1u);
  std::map<int, double> acrossFromNode;
  for (const Flow& f : tree.phases[0].flows) {
    if (f.from / 4 != f.to / 4) acrossFromNode[f.from / 4] += f.bytes;
  }
  double most = 0;
  for (const auto& [node, sent] : acrossFromNode) most = std::max(most, sent);
  EXPECT_DOUBLE_EQ(most, 2 * bytes);
  // 2 (ceil(log2 16) a_node + 3 a_gpu), less the one node hop the phase pays.
  EXPECT_NEAR(tree.extraLatencyS, 2 * (4 * 5e-6 + 3 * 1e-6) - 5e-6, 1e-15);
}

TEST(CollectiveFlows, OneGpuMovesNothingAndPartNodesAreRefused) {
  EXPECT_TRUE(collectiveFlows(CollectiveSchedule::kTreeAllreduce, 1e6, 1, fourGpuNodes()).phases.empty());
  EXPECT_THROW(collectiveFlows(CollectiveSchedule::kRingAllreduce, 1e6, 6, fourGpuNodes()),
               std::invalid_argument);
}

}  // namespace
}  // namespace dtb::core
