// The fusion strategy's parameters, declared once: the descriptor lists
// them (plugin.cpp) and the strategy reads them. Names after Horovod's
// environment variables.
#pragma once

#include "dtbench/settings.hpp"

namespace dtb::strategy::fusion {

inline constexpr StringSetting kPreset{"preset",
                                       "horovod",
                                       "Defaults of threshold and cycle time: horovod (128 MiB, 1 ms) or "
                                       "horovod-legacy (64 MiB, 5 ms, before v0.21)",
                                       {},
                                       "horovod|horovod-legacy"};
inline constexpr FloatSetting kFusionThresholdMb{
    "fusion_threshold_mb", "-1",
    "Fusion buffer size in MiB (HOROVOD_FUSION_THRESHOLD); 0 disables fusion; -1 takes the preset's",
    atLeast(-1)};
inline constexpr FloatSetting kCycleTimeMs{
    "cycle_time_ms", "-1",
    "Time between the background thread's rounds in ms (HOROVOD_CYCLE_TIME); -1 takes the preset's",
    atLeast(-1)};
inline constexpr IntSetting kCacheCapacity{
    "cache_capacity", "1024",
    "Response cache entries (HOROVOD_CACHE_CAPACITY); 0 negotiates every tensor through rank 0 every time",
    atLeast(0)};
inline constexpr FloatSetting kStallTimeoutS{"stall_timeout_s", "60",
                                             "Seconds rank 0 waits for a tensor some ranks submitted before "
                                             "failing the step, naming the missing ranks",
                                             atLeast(0.001)};

// Horovod's autotune (HOROVOD_AUTOTUNE and its knobs; autotune.h).
inline constexpr BoolSetting kAutotune{
    "autotune", "false",
    "Tune the fusion threshold (0-64 MiB) and cycle time (1-100 ms) by "
    "Bayesian optimisation during training, then keep the best (HOROVOD_AUTOTUNE)"};
inline constexpr IntSetting kAutotuneWarmupSamples{
    "autotune_warmup_samples", "3",
    "Points measured and dropped before tuning starts (HOROVOD_AUTOTUNE_WARMUP_SAMPLES)", atLeast(0)};
inline constexpr IntSetting kAutotuneStepsPerSample{
    "autotune_steps_per_sample", "10",
    "Steps per measurement window; a point is scored by the median of 5 windows "
    "(HOROVOD_AUTOTUNE_STEPS_PER_SAMPLE)",
    atLeast(1)};
inline constexpr IntSetting kAutotuneBayesOptMaxSamples{
    "autotune_bayes_opt_max_samples", "20",
    "Points scored after the warm-up before the best is kept (HOROVOD_AUTOTUNE_BAYES_OPT_MAX_SAMPLES)",
    atLeast(1)};
inline constexpr FloatSetting kAutotuneGaussianProcessNoise{
    "autotune_gaussian_process_noise", "0.2",
    "The Gaussian process's noise, in standardised score units (HOROVOD_AUTOTUNE_GAUSSIAN_PROCESS_NOISE)",
    atLeast(0.0001)};

}  // namespace dtb::strategy::fusion
