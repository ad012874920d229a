// The zero strategy plugin: the C ABI over ZeroStrategy.
#include <iterator>

#include "dtbench/descriptors.hpp"
#include "zero_strategy.h"

namespace dtb::strategy::zero {
namespace {

const dtb_param_spec_t kParams[] = {
    {sizeof(dtb_param_spec_t), "stage", DTB_PARAM_INT, "1",
     "1: shard optimizer state; 2: and gradients; 3: and parameters", DTB_PARAM_HAS_MIN | DTB_PARAM_HAS_MAX,
     1, 3, nullptr},
    {sizeof(dtb_param_spec_t), "reduce_bucket_size", DTB_PARAM_INT, "500000000",
     "Stages 1-2: elements per gradient reduction bucket (DeepSpeed's reduce_bucket_size)", DTB_PARAM_HAS_MIN,
     1, 0, nullptr},
    {sizeof(dtb_param_spec_t), "param_persistence_threshold", DTB_PARAM_INT, "100000",
     "Stage 3: layers with fewer parameter elements stay gathered (stage3_param_persistence_threshold)",
     DTB_PARAM_HAS_MIN, 0, 0, nullptr},
    {sizeof(dtb_param_spec_t), "reduce_scatter", DTB_PARAM_BOOL, "true",
     "Reduce gradients with a reduce-scatter; false: all-reduce each bucket and keep this rank's slice, as "
     "DeepSpeed's "
     "stage 1/2 code does",
     0, 0, 0, nullptr},
    {sizeof(dtb_param_spec_t), "prefetch", DTB_PARAM_BOOL, "true",
     "Stage 3: gather the next layer's parameters (along the recorded order) while this layer computes; "
     "false gathers each layer only when it begins (DeepSpeed with stage3_prefetch_bucket_size = 0)",
     0, 0, 0, nullptr},
};

const dtb_strategy_plugin_v1_t kDescriptor = strategyDescriptor<ZeroStrategy>(
    {sizeof(dtb_strategy_plugin_v1_t), DTB_ABI_VERSION, DTB_PLUGIN_STRATEGY, "zero", "0.1.0",
     "DeepSpeed ZeRO stages 1-3: optimizer state, gradients and parameters sharded over the ranks", kParams,
     std::size(kParams)});

}  // namespace
}  // namespace dtb::strategy::zero

extern "C" const dtb_strategy_plugin_v1_t* dtb_strategy_plugin_v1(void) {
  return &dtb::strategy::zero::kDescriptor;
}
