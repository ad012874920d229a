// Finding and calling dtbench-simgrid.so (simgrid_module.h): beside this
// dtbench's libraries (<its bin>/../lib/dtbench/), or where it was
// installed. Absent where dtbench was built without SimGrid.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "projection/collective_flows.h"
#include "projection/flow_platform.h"

namespace dtb::core {

std::optional<std::filesystem::path> findSimgridModule();

// In this process — a child's: the module brings SimGrid, and with it MPI's
// symbols, and SimGrid runs once a process. Throws std::runtime_error
// saying what is missing or what failed.
std::vector<double> timeWithSimgridModule(const FlowPlatform& platform,
                                          const std::vector<FlowSchedule>& schedules);

}  // namespace dtb::core
