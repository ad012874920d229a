// The platform dtbench describes to SimGrid: which links each route
// crosses, and what the fabric adds.
#include "projection/flow_platform.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "four_gpu_nodes.h"

namespace dtb::core {
namespace {

using test_systems::fourGpuNodes;

// The route's links by name, "+" going up, "-" coming down.
std::string routeOf(const FlowPlatform& p, int from, int to) {
  std::string text;
  for (const Hop& hop : p.routes.at({from, to})) text += (hop.up ? "+" : "-") + p.links[hop.link].name + " ";
  return text;
}

FlowPlatform platformFor(const SystemModel& system, int gpus, const std::vector<Flow>& flows) {
  FlowSchedule s;
  s.phases.push_back({flows, 1});
  return describePlatform(system, gpus, {s});
}

TEST(FlowPlatform, RoutesCrossTheGpusLinksOrTheirNodesNics) {
  const FlowPlatform p = platformFor(fourGpuNodes(), 8, {{1, 2, 1}, {3, 6, 1}});
  EXPECT_EQ(p.hosts, 8);
  EXPECT_EQ(p.links.size(), 8u + 2 * 4);  // a link a GPU, 4 NICs a node
  EXPECT_EQ(routeOf(p, 1, 2), "+nvlink1 -nvlink2 ");
  EXPECT_EQ(routeOf(p, 3, 6), "+nic0.3 -nic1.2 ");  // GPU i's NIC is NIC i
  EXPECT_EQ(p.routes.size(), 2u);                   // only the pairs the flows use
  // Each end carries half the latency: a route pays the system file's once.
  EXPECT_DOUBLE_EQ(p.links[p.routes.at({3, 6})[0].link].latencyS, 2.5e-6);
}

TEST(FlowPlatform, FewerNicsThanGpusAreShared) {
  SystemModel system = fourGpuNodes();
  system.nicsPerNode = 2;
  const FlowPlatform p = platformFor(system, 8, {{3, 4, 1}});
  EXPECT_EQ(routeOf(p, 3, 4), "+nic0.1 -nic1.0 ");
}

TEST(FlowPlatform, LeavesAddTheirUplinksPackedOrSpread) {
  SystemModel system = fourGpuNodes();
  system.fabric = {2, 4, false};  // 2 nodes a leaf: nodes 0-1 on leaf 0, 2-3 on leaf 1
  const std::vector<Flow> flows = {{0, 4, 1}, {4, 8, 1}};
  FlowPlatform p = platformFor(system, 16, flows);
  EXPECT_EQ(routeOf(p, 0, 4), "+nic0.0 -nic1.0 ");
  EXPECT_EQ(routeOf(p, 4, 8), "+nic1.0 +uplink0 -uplink1 -nic2.0 ");
  // An uplink carries 1/oversubscription of its leaf's NICs: 2 x 4 x 25 / 4.
  EXPECT_DOUBLE_EQ(p.links[p.routes.at({4, 8})[1].link].bytesPerS, 50e9);
  system.fabric.spread = true;  // nodes dealt out: 0 and 2 on leaf 0, 1 and 3 on leaf 1
  p = platformFor(system, 16, flows);
  EXPECT_EQ(routeOf(p, 0, 4), "+nic0.0 +uplink0 -uplink1 -nic1.0 ");
  EXPECT_EQ(routeOf(p, 4, 8), "+nic1.0 +uplink1 -uplink0 -nic2.0 ");
  // A job within one leaf crosses none.
  EXPECT_EQ(routeOf(platformFor(system, 8, {{0, 4, 1}}), 0, 4), "+nic0.0 -nic1.0 ");
}

}  // namespace
}  // namespace dtb::core
