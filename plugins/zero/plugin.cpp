// The zero strategy plugin: the C ABI over ZeroStrategy.
#include <iterator>

#include "dtbench/descriptors.hpp"
#include "zero_settings.h"
#include "zero_strategy.h"

namespace dtb::strategy::zero {
namespace {

constexpr dtb_param_spec_t kParams[] = {kStage.spec(), kReduceBucketSize.spec(),
                                        kParamPersistenceThreshold.spec(), kReduceScatter.spec(),
                                        kPrefetch.spec()};

const dtb_strategy_plugin_v1_t kDescriptor = strategyDescriptor<ZeroStrategy>(
    {sizeof(dtb_strategy_plugin_v1_t), DTB_ABI_VERSION, DTB_PLUGIN_STRATEGY, "zero", "0.1.0",
     "DeepSpeed ZeRO stages 1-3: optimizer state, gradients and parameters sharded over the ranks", kParams,
     std::size(kParams)});

}  // namespace
}  // namespace dtb::strategy::zero

extern "C" const dtb_strategy_plugin_v1_t* dtb_strategy_plugin_v1(void) {
  return &dtb::strategy::zero::kDescriptor;
}
