// The system as a flow-level simulator is handed it: hosts (the GPUs),
// full-duplex links, and for each pair of GPUs that exchange data the links
// its flows cross, in order. Ours to describe, the simulator's to simulate
// (projection/simgrid_module.h): every GPU's link to its node's switch
// (intra_node), each node's NICs (inter_node; a GPU uses NIC index % nics),
// and with [system.fabric] each leaf switch's uplink. A link's latency is
// split between its two ends, so a route pays the system file's once.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "projection/collective_flows.h"
#include "projection/system_model.h"

namespace dtb::core {

struct DuplexLink {
  std::string name;  // "nvlink3", "nic2.0", "uplink1": for the simulator's own messages
  double bytesPerS = 0;
  double latencyS = 0;
};

struct Hop {
  int link = 0;    // into FlowPlatform::links
  bool up = true;  // towards the switch (a link's one direction), or away from it
};

struct FlowPlatform {
  int hosts = 0;
  std::vector<DuplexLink> links;
  std::map<std::pair<int, int>, std::vector<Hop>> routes;  // (from, to) GPUs
};

// `gpus` GPUs of `system`, with a route for every pair `schedules` use.
// Throws std::invalid_argument for a count that fills no whole nodes.
FlowPlatform describePlatform(const SystemModel& system, int gpus,
                              const std::vector<FlowSchedule>& schedules);

}  // namespace dtb::core
