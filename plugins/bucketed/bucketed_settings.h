// The bucketed strategy's parameters, declared once: the descriptor lists
// them (plugin.cpp) and the strategy reads them (bucketed_strategy.cpp).
// Names and defaults as DistributedDataParallel's and its PowerSGD hook's.
#pragma once

#include "dtbench/settings.hpp"

namespace dtb::strategy::bucketed {

inline constexpr FloatSetting kBucketCapMb{"bucket_cap_mb", "25",
                                           "Size limit of every bucket but the first, in MiB (DDP's "
                                           "bucket_cap_mb); a bucket closes once it reaches it",
                                           atLeast(0)};
inline constexpr FloatSetting kFirstBucketMb{
    "first_bucket_mb", "1",
    "Size limit of the first bucket after the rebuild, in MiB (DDP's _DEFAULT_FIRST_BUCKET_BYTES)",
    atLeast(0)};
inline constexpr BoolSetting kGradientAsBucketView{
    "gradient_as_bucket_view", "false",
    "Gradients live in the buckets: no copies in or out, one gradient copy in memory"};
inline constexpr BoolSetting kFindUnusedParameters{"find_unused_parameters", "false",
                                                   "Reduce parameters that got no gradient as zeros instead "
                                                   "of failing the step (and never rebuild buckets)"};
inline constexpr StringSetting kCommHook{"comm_hook",
                                         "allreduce",
                                         "DDP communication hook: allreduce (f32), fp16 or bf16 "
                                         "(fp16_compress_hook / bf16_compress_hook), powersgd",
                                         {},
                                         "allreduce|fp16|bf16|powersgd"};
inline constexpr IntSetting kPowerSgdRank{"powersgd_rank", "1", "PowerSGD's matrix_approximation_rank",
                                          atLeast(1)};
inline constexpr IntSetting kPowerSgdStartIter{
    "powersgd_start_iter", "1000", "Steps of plain all-reduce before PowerSGD starts (start_powerSGD_iter)",
    atLeast(0)};
inline constexpr FloatSetting kPowerSgdMinCompressionRate{
    "powersgd_min_compression_rate", "2",
    "A matrix n x m is compressed only when (n + m) x rank x this < n x m", atLeast(0)};
inline constexpr BoolSetting kPowerSgdErrorFeedback{
    "powersgd_error_feedback", "true",
    "Add what the last compression missed to the next step's gradients (use_error_feedback)"};
inline constexpr BoolSetting kPowerSgdWarmStart{
    "powersgd_warm_start", "true", "Start each step's power iteration from the last step's Q (warm_start)"};
inline constexpr IntSetting kPowerSgdSeed{"powersgd_seed", "0", "Seed of the first Q (random_seed)",
                                          atLeast(0)};

}  // namespace dtb::strategy::bucketed
