// The fusion strategy plugin: the C ABI over FusionStrategy.
#include <iterator>

#include "dtbench/descriptors.hpp"
#include "fusion_settings.h"
#include "fusion_strategy.h"

namespace dtb::strategy::fusion {
namespace {

constexpr dtb_param_spec_t kParams[] = {kPreset.spec(), kFusionThresholdMb.spec(), kCycleTimeMs.spec(),
                                        kCacheCapacity.spec(), kStallTimeoutS.spec()};

const dtb_strategy_plugin_v1_t kDescriptor = strategyDescriptor<FusionStrategy>(
    {sizeof(dtb_strategy_plugin_v1_t), DTB_ABI_VERSION, DTB_PLUGIN_STRATEGY, "fusion", "0.1.0",
     "Horovod tensor fusion: a cycle thread, rank-0 negotiation, response cache, one fusion buffer", kParams,
     std::size(kParams)});

}  // namespace
}  // namespace dtb::strategy::fusion

extern "C" const dtb_strategy_plugin_v1_t* dtb_strategy_plugin_v1(void) {
  return &dtb::strategy::fusion::kDescriptor;
}
