// The bucketed strategy plugin: the C ABI over BucketedStrategy.
#include <iterator>

#include "bucketed_settings.h"
#include "bucketed_strategy.h"
#include "dtbench/descriptors.hpp"

namespace dtb::strategy::bucketed {
namespace {

constexpr dtb_param_spec_t kParams[] = {
    kBucketCapMb.spec(),
    kFirstBucketMb.spec(),
    kGradientAsBucketView.spec(),
    kFindUnusedParameters.spec(),
    kCommHook.spec(),
    kPowerSgdRank.spec(),
    kPowerSgdStartIter.spec(),
    kPowerSgdMinCompressionRate.spec(),
    kPowerSgdErrorFeedback.spec(),
    kPowerSgdWarmStart.spec(),
    kPowerSgdSeed.spec(),
};

const dtb_strategy_plugin_v1_t kDescriptor = strategyDescriptor<BucketedStrategy>(
    {sizeof(dtb_strategy_plugin_v1_t), DTB_ABI_VERSION, DTB_PLUGIN_STRATEGY, "bucketed", "0.1.0",
     "PyTorch DDP's reducer: gradient buckets all-reduced during backward, rebuilt in ready order", kParams,
     std::size(kParams)});

}  // namespace
}  // namespace dtb::strategy::bucketed

extern "C" const dtb_strategy_plugin_v1_t* dtb_strategy_plugin_v1(void) {
  return &dtb::strategy::bucketed::kDescriptor;
}
