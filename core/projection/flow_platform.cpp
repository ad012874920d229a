#include "projection/flow_platform.h"

#include "projection/collective_cost.h"

namespace dtb::core {
namespace {

int addLink(FlowPlatform& p, const std::string& name, const Link& link) {
  p.links.push_back({name, link.bytesPerS, link.latencyS / 2});
  return static_cast<int>(p.links.size()) - 1;
}

}  // namespace

FlowPlatform describePlatform(const SystemModel& system, int gpus,
                              const std::vector<FlowSchedule>& schedules) {
  const GpuPlacement at = placeGpus(gpus, system);
  FlowPlatform p;
  p.hosts = gpus;
  std::vector<int> port, nic, uplink, leafOfNode;
  for (int g = 0; g < gpus; ++g) port.push_back(addLink(p, "nvlink" + std::to_string(g), system.intraNode));
  for (int node = 0; node < at.nodes; ++node) {
    for (int k = 0; k < at.nics; ++k)
      nic.push_back(addLink(p, "nic" + std::to_string(node) + "." + std::to_string(k), system.interNode));
  }
  const Fabric& f = system.fabric;
  if (f.nodesPerSwitch > 0 && at.nodes > f.nodesPerSwitch) {
    const int leaves = (at.nodes + f.nodesPerSwitch - 1) / f.nodesPerSwitch;
    const Link up{0, f.nodesPerSwitch * at.nics * system.interNode.bytesPerS / f.oversubscription};
    for (int leaf = 0; leaf < leaves; ++leaf)
      uplink.push_back(addLink(p, "uplink" + std::to_string(leaf), up));
    for (int n = 0; n < at.nodes; ++n) leafOfNode.push_back(f.spread ? n % leaves : n / f.nodesPerSwitch);
  }
  const auto nodeOf = [&](int gpu) { return gpu / at.perNode; };
  const auto nicOf = [&](int gpu) { return nic[nodeOf(gpu) * at.nics + gpu % at.perNode % at.nics]; };
  for (const FlowSchedule& s : schedules) {
    for (const FlowPhase& phase : s.phases) {
      for (const Flow& flow : phase.flows) {
        std::vector<Hop>& hops = p.routes[{flow.from, flow.to}];
        if (!hops.empty()) continue;
        const int a = nodeOf(flow.from), b = nodeOf(flow.to);
        if (a == b) {
          hops = {{port[flow.from], true}, {port[flow.to], false}};
          continue;
        }
        hops.push_back({nicOf(flow.from), true});
        if (!leafOfNode.empty() && leafOfNode[a] != leafOfNode[b]) {
          hops.push_back({uplink[leafOfNode[a]], true});
          hops.push_back({uplink[leafOfNode[b]], false});
        }
        hops.push_back({nicOf(flow.to), false});
      }
    }
  }
  return p;
}

}  // namespace dtb::core
