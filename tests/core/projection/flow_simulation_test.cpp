// SimGrid's flow-level timing of NCCL's schedules: the closed forms given
// back where no link is shared, known answers where links are shared, and
// its bounds. Skipped when this dtbench was built without SimGrid.
#include "projection/flow_simulation.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "four_gpu_nodes.h"

namespace dtb::core {
namespace {

using test_systems::fourGpuNodes;

#define SKIP_WITHOUT_SIMGRID() \
  if (!simgridAvailable()) GTEST_SKIP() << "built without SimGrid (libsimgrid-dev)"

// Different latencies on the two kinds of link, so that a route paying the
// wrong one shows.
void expectClose(double simulated, double formula, const std::string& what) {
  EXPECT_NEAR(simulated, formula, 1e-6 * formula) << what;
}

TEST(FlowSimulation, GivesTheClosedFormsBackWhereNoLinkIsShared) {
  SKIP_WITHOUT_SIMGRID();
  const SystemModel system = fourGpuNodes();
  for (int gpus : {4, 8, 16, 64, 1024}) {
    const SimulatedNetwork network = simulateNetwork(system, gpus);
    for (double bytes : {4096.0, 1e8}) {
      const std::string at = std::to_string(gpus) + " GPUs, " + std::to_string(bytes) + " bytes";
      const AllreduceCost formula = allreduceCost(bytes, gpus, system);
      const AllreduceCost simulated = allreduceCost(bytes, network);
      expectClose(simulated.ringS, formula.ringS, "ring, " + at);
      expectClose(simulated.hierarchicalS, formula.hierarchicalS, "hierarchical, " + at);
      expectClose(network.reduceScatter.at(bytes), reduceScatterCostS(bytes, gpus, system),
                  "reduce-scatter, " + at);
      expectClose(network.allgather.at(bytes), allgatherCostS(bytes, gpus, system), "all-gather, " + at);
      // The formula's 2S a rank holds for chains of three or more and
      // trees of four nodes or more (below, ranks send less: next test).
      if (gpus == 4 || gpus >= 16) expectClose(simulated.treeS, formula.treeS, "tree, " + at);
    }
  }
}

TEST(FlowSimulation, ATwoRankTreeSendsBothWaysAtOnce) {
  // Two GPUs: one sends the array up while the other sends it down, on a
  // full-duplex link: S/B, where the formula's 2S/B counts them in turn.
  // The latency is the formula's, 2 a (the pipeline's fill and drain).
  SKIP_WITHOUT_SIMGRID();
  const SystemModel system = fourGpuNodes();
  const double bytes = 1e8;
  EXPECT_NEAR(simulateNetwork(system, 2).tree.at(bytes), 2e-6 + bytes / 300e9, 1e-9);
}

TEST(FlowSimulation, OversubscribedUplinksPaceTheRingsThatCrossThem) {
  // 4 nodes a leaf switch, uplinks 8:1: 4 x 4 x 25 / 8 = 50 GB/s, shared by
  // the 4 channels that cross each leaf boundary: 12.5 GB/s each, half a
  // NIC. The ring runs as on a path of 4 x 12.5 GB/s.
  SKIP_WITHOUT_SIMGRID();
  SystemModel system = fourGpuNodes();
  system.fabric = {4, 8, false};
  const double bytes = 1e8;
  const int gpus = 32;
  const double expected = ringAllreduceS(bytes, gpus, Link{5e-6, 50e9});
  EXPECT_NEAR(simulateNetwork(system, gpus).ring.at(bytes), expected, 1e-6 * expected);
  // Spread over the 2 leaves, every node's ring hop crosses them: 4 nodes x
  // 4 channels share each uplink, 3.125 GB/s a channel.
  system.fabric.spread = true;
  const double spread = ringAllreduceS(bytes, gpus, Link{5e-6, 4 * 3.125e9});
  EXPECT_NEAR(simulateNetwork(system, gpus).ring.at(bytes), spread, 1e-6 * spread);
  system.fabric.spread = false;
  // Within one leaf nothing crosses an uplink: as without the fabric.
  const double inLeaf = allreduceCost(bytes, 16, system).ringS;
  EXPECT_NEAR(simulateNetwork(system, 16).ring.at(bytes), inLeaf, 1e-6 * inLeaf);
}

TEST(FlowSimulation, ASchedulesLineIsItsSimulation) {
  // The line through two sizes prices a third as simulating it does.
  SKIP_WITHOUT_SIMGRID();
  SystemModel system = fourGpuNodes();
  system.fabric = {2, 4, true};
  const int gpus = 64;
  const SimulatedNetwork network = simulateNetwork(system, gpus);
  const double bytes = 5e7;
  const std::vector<double> direct =
      simulateSchedules(system, gpus,
                        {collectiveFlows(CollectiveSchedule::kRingAllreduce, bytes, gpus, system),
                         collectiveFlows(CollectiveSchedule::kTreeAllreduce, bytes, gpus, system)});
  ASSERT_EQ(direct.size(), 2u);
  EXPECT_NEAR(network.ring.at(bytes), direct[0], 1e-3 * direct[0]);
  EXPECT_NEAR(network.tree.at(bytes), direct[1], 1e-3 * direct[1]);
}

TEST(FlowSimulation, IsBoundedInFlowsAndTime) {
  SKIP_WITHOUT_SIMGRID();
  SystemModel system = fourGpuNodes();
  FlowSchedule huge;
  huge.phases.push_back({std::vector<Flow>(kMaxSimulatedFlows + 1, Flow{0, 1, 1}), 1});
  try {
    simulateSchedules(system, 8, {huge});
    FAIL() << "too many flows accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("flows, more than the 1000000"), std::string::npos) << e.what();
  }
  try {
    simulateNetwork(system, 1024, std::chrono::milliseconds(1));
    FAIL() << "no time limit";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("did not finish within"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace dtb::core
