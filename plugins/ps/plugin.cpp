// The ps strategy plugin: the C ABI over PsStrategy.
#include "dtbench/descriptors.hpp"
#include "ps_settings.h"
#include "ps_strategy.h"

namespace dtb::strategy::ps {
namespace {

constexpr dtb_param_spec_t kParams[] = {kServers.spec(), kMode.spec(), kStaleness.spec()};

}  // namespace

DTB_EXPORT_STRATEGY_PLUGIN(strategyDescriptor<PsStrategy>(
    "ps", "0.1.0",
    "Parameter server: sharded servers on chosen ranks; workers push gradients and pull parameters, "
    "sync or async with bounded staleness",
    kParams))

}  // namespace dtb::strategy::ps
