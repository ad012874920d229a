// The zero strategy's parameters, declared once: the descriptor lists them
// (plugin.cpp) and the strategy reads them. Names after DeepSpeed's
// zero_optimization configuration.
#pragma once

#include "dtbench/settings.hpp"

namespace dtb::strategy::zero {

inline constexpr IntSetting kStage{
    "stage", "1", "1: shard optimizer state; 2: and gradients; 3: and parameters", between(1, 3)};
inline constexpr IntSetting kReduceBucketSize{
    "reduce_bucket_size", "500000000",
    "Stages 1-2: elements per gradient reduction bucket (DeepSpeed's reduce_bucket_size)", atLeast(1)};
inline constexpr IntSetting kParamPersistenceThreshold{
    "param_persistence_threshold", "100000",
    "Stage 3: layers with fewer parameter elements stay gathered (stage3_param_persistence_threshold)",
    atLeast(0)};
inline constexpr BoolSetting kReduceScatter{
    "reduce_scatter", "true",
    "Reduce gradients with a reduce-scatter; false: all-reduce each bucket and keep this rank's slice, as "
    "DeepSpeed's stage 1/2 code does"};
inline constexpr BoolSetting kPrefetch{
    "prefetch", "true",
    "Stage 3: gather the next layer's parameters (along the recorded order) while this layer computes; false "
    "gathers each layer only when it begins (DeepSpeed with stage3_prefetch_bucket_size = 0)"};

}  // namespace dtb::strategy::zero
