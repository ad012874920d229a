// The fusion strategy plugin: the C ABI over FusionStrategy.
#include <iterator>

#include "dtbench/descriptors.hpp"
#include "fusion_settings.h"
#include "fusion_strategy.h"

namespace dtb::strategy::fusion {
namespace {

constexpr dtb_param_spec_t kParams[] = {kPreset.spec(),
                                        kFusionThresholdMb.spec(),
                                        kCycleTimeMs.spec(),
                                        kCacheCapacity.spec(),
                                        kStallTimeoutS.spec(),
                                        kAutotune.spec(),
                                        kAutotuneWarmupSamples.spec(),
                                        kAutotuneStepsPerSample.spec(),
                                        kAutotuneBayesOptMaxSamples.spec(),
                                        kAutotuneGaussianProcessNoise.spec()};

}  // namespace

DTB_EXPORT_STRATEGY_PLUGIN(strategyDescriptor<FusionStrategy>(
    "fusion", "0.1.0",
    "Horovod tensor fusion: a cycle thread, rank-0 negotiation, response cache, one fusion buffer", kParams))

}  // namespace dtb::strategy::fusion
