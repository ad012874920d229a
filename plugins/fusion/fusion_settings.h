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

}  // namespace dtb::strategy::fusion
