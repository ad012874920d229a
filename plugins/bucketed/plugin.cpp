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

}  // namespace

DTB_EXPORT_STRATEGY_PLUGIN(strategyDescriptor<BucketedStrategy>(
    "bucketed", "0.1.0",
    "PyTorch DDP's reducer: gradient buckets all-reduced during backward, rebuilt in ready order", kParams))

}  // namespace dtb::strategy::bucketed
