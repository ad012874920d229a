// The system as SimGrid sees it, and the schedules timed on it: a GPU's
// link to its node's switch (NVLink: intra_node), a node's NICs
// (inter_node, a GPU using NIC index % nics), and with [system.fabric]
// each leaf switch's uplink; every link full duplex, latency split between
// its two ends so that a route pays the system file's latency once. Flows
// share links max-min fairly (SimGrid's CM02 model, with no TCP window, no
// cross traffic and no correction factors: the alpha-beta model's terms,
// so that where no link is shared it gives the closed forms back).
//
// SimGrid keeps one engine per process: run this in a process of its own
// (flow_simulation.h does). Built against SimGrid when it is installed
// (libsimgrid-dev); otherwise it throws, saying so.
#pragma once

#include <vector>

#include "projection/collective_flows.h"
#include "projection/system_model.h"

namespace dtb::core {

// Each schedule's seconds on `gpus` GPUs of `system`, one after another on
// an idle network.
std::vector<double> timeSchedulesWithSimGrid(const SystemModel& system, int gpus,
                                             const std::vector<FlowSchedule>& schedules);

bool simgridBuiltIn();

}  // namespace dtb::core
