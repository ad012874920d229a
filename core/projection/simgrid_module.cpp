// dtbench-simgrid.so: FlowPlatform made SimGrid's, and the schedules timed
// on it by one actor, phase by phase (simgrid_module.h).
#include "projection/simgrid_module.h"

#include <xbt/log.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <simgrid/s4u.hpp>

namespace {

namespace sg4 = simgrid::s4u;
using dtb::core::FlowPhase;
using dtb::core::FlowPlatform;
using dtb::core::FlowSchedule;

class Platform {
 public:
  explicit Platform(const FlowPlatform& p) : zone_(sg4::create_full_zone("system")) {
    for (int h = 0; h < p.hosts; ++h) hosts_.push_back(zone_->create_host("gpu" + std::to_string(h), 1e12));
    for (const dtb::core::DuplexLink& l : p.links) {
      sg4::SplitDuplexLink* link = zone_->create_split_duplex_link(l.name, l.bytesPerS);
      link->set_latency(l.latencyS);
      link->seal();
      links_.push_back(link);
    }
    for (const auto& [pair, hops] : p.routes) {
      std::vector<sg4::LinkInRoute> route;
      for (const dtb::core::Hop& hop : hops)
        route.emplace_back(links_[hop.link],
                           hop.up ? sg4::LinkInRoute::Direction::UP : sg4::LinkInRoute::Direction::DOWN);
      zone_->add_route(hosts_[pair.first]->get_netpoint(), hosts_[pair.second]->get_netpoint(), nullptr,
                       nullptr, route, false);
    }
    zone_->seal();
  }

  sg4::Host* host(int gpu) const { return hosts_[gpu]; }

 private:
  sg4::NetZone* zone_;
  std::vector<sg4::Host*> hosts_;
  std::vector<sg4::SplitDuplexLink*> links_;
};

// A phase's flows started together; the simulated seconds until the last ends.
double timePhase(const Platform& platform, const FlowPhase& phase) {
  const double start = sg4::Engine::get_clock();
  std::vector<sg4::CommPtr> comms;
  comms.reserve(phase.flows.size());
  for (const dtb::core::Flow& f : phase.flows) {
    const auto bytes = static_cast<uint64_t>(std::max(1.0, std::round(f.bytes)));
    comms.push_back(sg4::Comm::sendto_async(platform.host(f.from), platform.host(f.to), bytes));
  }
  sg4::Comm::wait_all(comms);
  return sg4::Engine::get_clock() - start;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) bool dtbench_simgrid_time(
    const FlowPlatform* p, const std::vector<FlowSchedule>* schedules, std::vector<double>* seconds,
    std::string* error) {
  try {
    int argc = 1;
    char program[] = "dtbench-project";
    char* argv[] = {program, nullptr};
    sg4::Engine engine(&argc, argv);
    xbt_log_control_set("root.thres:critical");
    sg4::Engine::set_config("network/model:CM02");
    sg4::Engine::set_config("network/TCP-gamma:0");
    sg4::Engine::set_config("network/crosstraffic:0");
    // One actor: threads cost nothing, and sanitizers follow them (not
    // SimGrid's own stack switching).
    sg4::Engine::set_config("contexts/factory:thread");
    const Platform platform(*p);
    sg4::Actor::create("conductor", platform.host(0), [&] {
      for (const FlowSchedule& s : *schedules) {
        double total = s.extraLatencyS;
        for (const FlowPhase& phase : s.phases) total += phase.repeats * timePhase(platform, phase);
        seconds->push_back(total);
      }
    });
    engine.run();
    return true;
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
}
