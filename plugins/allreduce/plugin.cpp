// The allreduce strategy plugin: the C ABI over AllreduceStrategy.
#include "allreduce_strategy.h"
#include "dtbench/descriptors.hpp"

namespace dtb::strategy::allreduce {
namespace {

const dtb_strategy_plugin_v1_t kDescriptor = strategyDescriptor<AllreduceStrategy>(
    {sizeof(dtb_strategy_plugin_v1_t), DTB_ABI_VERSION, DTB_PLUGIN_STRATEGY, "allreduce", "0.1.0",
     "Baseline: one averaged all-reduce per gradient after backward, no bucketing or overlap", nullptr, 0});

}  // namespace
}  // namespace dtb::strategy::allreduce

extern "C" const dtb_strategy_plugin_v1_t* dtb_strategy_plugin_v1(void) {
  return &dtb::strategy::allreduce::kDescriptor;
}
