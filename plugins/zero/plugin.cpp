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

}  // namespace

DTB_EXPORT_STRATEGY_PLUGIN(strategyDescriptor<ZeroStrategy>(
    "zero", "0.1.0",
    "DeepSpeed ZeRO stages 1-3: optimizer state, gradients and parameters sharded over the ranks", kParams))

}  // namespace dtb::strategy::zero
