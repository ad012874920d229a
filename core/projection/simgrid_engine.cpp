#include "projection/simgrid_engine.h"

#include <xbt/log.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <simgrid/s4u.hpp>
#include <string>
#include <utility>

#include "projection/collective_cost.h"

namespace dtb::core {
namespace {

namespace sg4 = simgrid::s4u;
using Direction = sg4::LinkInRoute::Direction;

sg4::SplitDuplexLink* duplexLink(sg4::NetZone* zone, const std::string& name, double bytesPerS,
                                 double latencyS) {
  sg4::SplitDuplexLink* link = zone->create_split_duplex_link(name, bytesPerS);
  link->set_latency(latencyS);
  link->seal();
  return link;
}

// The platform for `gpus` GPUs, with a route for each pair in `pairs`.
class Platform {
 public:
  Platform(const SystemModel& system, int gpus, const std::set<std::pair<int, int>>& pairs)
      : at_(placeGpus(gpus, system)), zone_(sg4::create_full_zone("system")) {
    const Link& gpuLink = system.intraNode;
    const Link& nic = system.interNode;
    for (int g = 0; g < gpus; ++g) {
      hosts_.push_back(zone_->create_host("gpu" + std::to_string(g), 1e12));
      ports_.push_back(
          duplexLink(zone_, "nvlink" + std::to_string(g), gpuLink.bytesPerS, gpuLink.latencyS / 2));
    }
    for (int node = 0; node < at_.nodes; ++node) {
      for (int k = 0; k < at_.nics; ++k) {
        nics_.push_back(duplexLink(zone_, "nic" + std::to_string(node) + "." + std::to_string(k),
                                   nic.bytesPerS, nic.latencyS / 2));
      }
    }
    const Fabric& f = system.fabric;
    if (f.nodesPerSwitch > 0 && at_.nodes > f.nodesPerSwitch) {
      const int leaves = (at_.nodes + f.nodesPerSwitch - 1) / f.nodesPerSwitch;
      const double uplink = f.nodesPerSwitch * at_.nics * nic.bytesPerS / f.oversubscription;
      for (int leaf = 0; leaf < leaves; ++leaf)
        uplinks_.push_back(duplexLink(zone_, "uplink" + std::to_string(leaf), uplink, 0));
      for (int n = 0; n < at_.nodes; ++n) leafOfNode_.push_back(f.spread ? n % leaves : n / f.nodesPerSwitch);
    }
    for (const auto& [from, to] : pairs) route(from, to);
    zone_->seal();
  }

  sg4::Host* host(int gpu) const { return hosts_[gpu]; }

 private:
  int node(int gpu) const { return gpu / at_.perNode; }
  sg4::SplitDuplexLink* nicOf(int gpu) const {
    return nics_[node(gpu) * at_.nics + gpu % at_.perNode % at_.nics];
  }

  void route(int from, int to) {
    std::vector<sg4::LinkInRoute> links;
    if (node(from) == node(to)) {
      links = {{ports_[from], Direction::UP}, {ports_[to], Direction::DOWN}};
    } else {
      links.emplace_back(nicOf(from), Direction::UP);
      if (!leafOfNode_.empty() && leafOfNode_[node(from)] != leafOfNode_[node(to)]) {
        links.emplace_back(uplinks_[leafOfNode_[node(from)]], Direction::UP);
        links.emplace_back(uplinks_[leafOfNode_[node(to)]], Direction::DOWN);
      }
      links.emplace_back(nicOf(to), Direction::DOWN);
    }
    zone_->add_route(hosts_[from]->get_netpoint(), hosts_[to]->get_netpoint(), nullptr, nullptr, links,
                     false);
  }

  GpuPlacement at_;
  sg4::NetZone* zone_;
  std::vector<int> leafOfNode_;  // empty: one switch for every node
  std::vector<sg4::Host*> hosts_;
  std::vector<sg4::SplitDuplexLink*> ports_, nics_, uplinks_;
};

// A phase's flows started together; the simulated seconds until the last ends.
double timePhase(const Platform& platform, const FlowPhase& phase) {
  const double start = sg4::Engine::get_clock();
  std::vector<sg4::CommPtr> comms;
  comms.reserve(phase.flows.size());
  for (const Flow& f : phase.flows) {
    const auto bytes = static_cast<uint64_t>(std::max(1.0, std::round(f.bytes)));
    comms.push_back(sg4::Comm::sendto_async(platform.host(f.from), platform.host(f.to), bytes));
  }
  sg4::Comm::wait_all(comms);
  return sg4::Engine::get_clock() - start;
}

}  // namespace

std::vector<double> timeSchedulesWithSimGrid(const SystemModel& system, int gpus,
                                             const std::vector<FlowSchedule>& schedules) {
  int argc = 1;
  char program[] = "dtbench-project";
  char* argv[] = {program, nullptr};
  sg4::Engine engine(&argc, argv);
  xbt_log_control_set("root.thres:critical");
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/TCP-gamma:0");
  sg4::Engine::set_config("network/crosstraffic:0");
  // One actor, so threads cost nothing, and sanitizers follow them (not
  // SimGrid's own stack switching).
  sg4::Engine::set_config("contexts/factory:thread");

  std::set<std::pair<int, int>> pairs;
  for (const FlowSchedule& s : schedules) {
    for (const FlowPhase& phase : s.phases) {
      for (const Flow& f : phase.flows) pairs.emplace(f.from, f.to);
    }
  }
  const Platform platform(system, gpus, pairs);
  std::vector<double> seconds;
  sg4::Actor::create("conductor", platform.host(0), [&] {
    for (const FlowSchedule& s : schedules) {
      double total = s.extraLatencyS;
      for (const FlowPhase& phase : s.phases) total += phase.repeats * timePhase(platform, phase);
      seconds.push_back(total);
    }
  });
  engine.run();
  return seconds;
}

bool simgridBuiltIn() { return true; }

}  // namespace dtb::core
