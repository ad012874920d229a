// The collective cost models against their formulas (ANCHORS.md's ring
// all-reduce, NCCL's double binary tree), against each other where they
// must agree, and on the JUWELS Booster file that ships as the example.
#include "projection/collective_cost.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace dtb::core {
namespace {

const Link kLink{1e-6, 1e9};  // 1 us, 1 GB/s

SystemModel fourGpuNodes(double nodeGbps) {
  SystemModel s;
  s.name = "test";
  s.gpusPerNode = 4;
  s.nicsPerNode = 4;
  s.intraNode = {1e-6, 300e9};
  s.interNode = {5e-6, nodeGbps * 1e9};
  return s;
}

TEST(CollectiveCost, RingAllreduceIsTheAnchorsFormula) {
  // 2(p - 1) a + 2 (p - 1) / p S b, p = 4, S = 1 MB.
  EXPECT_DOUBLE_EQ(ringAllreduceS(1e6, 4, kLink), 6e-6 + 1.5e-3);
  EXPECT_DOUBLE_EQ(ringReduceScatterS(1e6, 4, kLink), 3e-6 + 0.75e-3);
  EXPECT_DOUBLE_EQ(ringAllgatherS(1e6, 4, kLink), 3e-6 + 0.75e-3);
  // The tree: 2 ceil(log2 p) a + 2 S b; ceil(log2 5) = 3.
  EXPECT_DOUBLE_EQ(treeAllreduceS(1e6, 5, kLink), 6e-6 + 2e-3);
}

TEST(CollectiveCost, OneRankMovesNothing) {
  EXPECT_EQ(ringAllreduceS(1e9, 1, kLink), 0);
  EXPECT_EQ(treeAllreduceS(1e9, 1, kLink), 0);
  EXPECT_EQ(allreduceCost(1e9, 1, fourGpuNodes(25)).bestS, 0);
}

TEST(CollectiveCost, ABigRingsBusBandwidthIsTheLinks) {
  // nccl-tests' bus bandwidth is defined so that a ring's equals its link's.
  const Link noLatency{0, 12.5e9};
  for (int p : {2, 3, 8, 1024}) {
    const double s = 1e9;
    EXPECT_NEAR(allreduceBusBytesPerS(s, ringAllreduceS(s, p, noLatency), p), 12.5e9, 1.0) << p << " ranks";
  }
}

TEST(CollectiveCost, AFittedLinkGivesBackTheFit) {
  // collective_fit's t = a + bus bytes / B at p ranks, through the link it implies.
  const double a = 40e-6, busBytesPerS = 3e9, bytes = 8e6;
  const int p = 6;
  const double busBytes = bytes * 2.0 * (p - 1) / p;
  EXPECT_NEAR(ringAllreduceS(bytes, p, linkFromAllreduceFit(a, busBytesPerS, p)), a + busBytes / busBytesPerS,
              1e-15);
}

TEST(CollectiveCost, AFittedHalfRingGivesBackItsFit) {
  // A reduce-scatter's or all-gather's fit: t = a + S (p - 1) / p / B.
  const double a = 400e-6, busBytesPerS = 2e9, bytes = 8e6;
  const int p = 4;
  const Link link = linkFromHalfRingFit(a, busBytesPerS, p);
  EXPECT_NEAR(ringReduceScatterS(bytes, p, link), a + bytes * 3 / 4 / busBytesPerS, 1e-15);
  EXPECT_NEAR(ringAllgatherS(bytes, p, link), a + bytes * 3 / 4 / busBytesPerS, 1e-15);
}

TEST(CollectiveCost, TheTreeWinsSmallMessagesAtScaleAndTheRingLargeOnes) {
  const SystemModel system = fourGpuNodes(25);
  const AllreduceCost small = allreduceCost(4096, 1024, system);
  EXPECT_LT(small.treeS, small.ringS);
  EXPECT_EQ(small.best, "tree");  // 2 x 11 latencies against the ring's 2 x 1,023
  const AllreduceCost large = allreduceCost(1e10, 8, system);
  EXPECT_LT(large.ringS, large.treeS);  // 2 (p - 1) / p S against 2 S
}

TEST(CollectiveCost, WithinANodeHierarchicalIsTheRing) {
  const SystemModel system = fourGpuNodes(25);
  for (int g : {2, 3, 4}) {
    const AllreduceCost c = allreduceCost(1e8, g, system);
    EXPECT_DOUBLE_EQ(c.hierarchicalS, ringAllreduceS(1e8, g, system.intraNode)) << g;
    EXPECT_DOUBLE_EQ(c.ringS, c.hierarchicalS) << g;
  }
}

TEST(CollectiveCost, AcrossNodesTheSlowerPathPacesTheRing) {
  // Four NICs of 25 GB/s carry 100 GB/s, under the GPU link's 300: the NICs pace it.
  const SystemModel system = fourGpuNodes(25);
  const double bytes = 1e9;
  const AllreduceCost c = allreduceCost(bytes, 16, system);
  EXPECT_DOUBLE_EQ(c.ringS, ringAllreduceS(bytes, 16, {system.interNode.latencyS, 100e9}));
  // Hierarchical: a quarter of the array per NIC across 4 nodes, the node's rings around it.
  const double expected = ringReduceScatterS(bytes, 4, system.intraNode) +
                          ringAllreduceS(bytes / 4, 4, system.interNode) +
                          ringAllgatherS(bytes, 4, system.intraNode);
  EXPECT_DOUBLE_EQ(c.hierarchicalS, expected);
  // One NIC a node: the four slices share it.
  SystemModel oneNic = system;
  oneNic.nicsPerNode = 1;
  EXPECT_GT(allreduceCost(bytes, 16, oneNic).hierarchicalS, c.hierarchicalS * 3);
}

TEST(CollectiveCost, GpusThatDoNotFillNodesAreRefused) {
  try {
    allreduceCost(1e6, 6, fourGpuNodes(25));
    FAIL() << "6 GPUs on nodes of 4 projected";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "6 GPUs do not fill whole nodes of 4 (test)");
  }
  EXPECT_THROW(allreduceCost(1e6, 0, fourGpuNodes(25)), std::invalid_argument);
}

TEST(CollectiveCost, TheJuwelsExampleAtAThousandGpus) {
  const SystemModel juwels =
      readSystemFile(std::string(DTBENCH_SOURCE_DIR) + "/examples/systems/juwels_booster.toml");
  // 100 MB at 1,024 GPUs (256 nodes): the tree's 2 x 11 latencies and 2 S over
  // the four NICs' 100 GB/s, about 2.02 ms; the ring pays 2 x 1,023 latencies.
  const AllreduceCost c = allreduceCost(1e8, 1024, juwels);
  EXPECT_EQ(c.nodes, 256);
  EXPECT_EQ(c.best, "tree");
  EXPECT_NEAR(c.treeS, 2 * (8 + 3) * 1e-6 + 2 * 1e8 / 100e9, 1e-12);
  EXPECT_NEAR(c.ringS, 2 * 1023 * 1e-6 + 2 * 1023.0 / 1024 * 1e8 / 100e9, 1e-12);
}

}  // namespace
}  // namespace dtb::core
