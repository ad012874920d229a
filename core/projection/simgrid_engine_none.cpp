// Built without SimGrid: the flow-level simulation says how to get it.
#include <stdexcept>

#include "projection/simgrid_engine.h"

namespace dtb::core {

std::vector<double> timeSchedulesWithSimGrid(const SystemModel&, int, const std::vector<FlowSchedule>&) {
  throw std::runtime_error(
      "this dtbench was built without SimGrid: install libsimgrid-dev (tools/install-deps.sh) and "
      "rebuild, or use --network-model formulas");
}

bool simgridBuiltIn() { return false; }

}  // namespace dtb::core
