// The fusion strategy plugin: the C ABI over FusionStrategy.
#include <iterator>

#include "dtbench/descriptors.hpp"
#include "fusion_strategy.h"

namespace dtb::strategy::fusion {
namespace {

const dtb_param_spec_t kParams[] = {
    {sizeof(dtb_param_spec_t), "preset", DTB_PARAM_STRING, "horovod",
     "Defaults of threshold and cycle time: horovod (128 MiB, 1 ms) or horovod-legacy (64 MiB, 5 ms, before "
     "v0.21)",
     0, 0, 0, "horovod|horovod-legacy"},
    {sizeof(dtb_param_spec_t), "fusion_threshold_mb", DTB_PARAM_FLOAT, "-1",
     "Fusion buffer size in MiB (HOROVOD_FUSION_THRESHOLD); 0 disables fusion; -1 takes the preset's",
     DTB_PARAM_HAS_MIN, -1, 0, nullptr},
    {sizeof(dtb_param_spec_t), "cycle_time_ms", DTB_PARAM_FLOAT, "-1",
     "Time between the background thread's rounds in ms (HOROVOD_CYCLE_TIME); -1 takes the preset's",
     DTB_PARAM_HAS_MIN, -1, 0, nullptr},
    {sizeof(dtb_param_spec_t), "cache_capacity", DTB_PARAM_INT, "1024",
     "Response cache entries (HOROVOD_CACHE_CAPACITY); 0 negotiates every tensor through rank 0 every time",
     DTB_PARAM_HAS_MIN, 0, 0, nullptr},
    {sizeof(dtb_param_spec_t), "stall_timeout_s", DTB_PARAM_FLOAT, "60",
     "Seconds rank 0 waits for a tensor some ranks submitted before failing the step, naming the missing "
     "ranks",
     DTB_PARAM_HAS_MIN, 0.001, 0, nullptr},
};

const dtb_strategy_plugin_v1_t kDescriptor = strategyDescriptor<FusionStrategy>(
    {sizeof(dtb_strategy_plugin_v1_t), DTB_ABI_VERSION, DTB_PLUGIN_STRATEGY, "fusion", "0.1.0",
     "Horovod tensor fusion: a cycle thread, rank-0 negotiation, response cache, one fusion buffer", kParams,
     std::size(kParams)});

}  // namespace
}  // namespace dtb::strategy::fusion

extern "C" const dtb_strategy_plugin_v1_t* dtb_strategy_plugin_v1(void) {
  return &dtb::strategy::fusion::kDescriptor;
}
