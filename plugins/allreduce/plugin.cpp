// The allreduce strategy plugin: the C ABI over AllreduceStrategy.
#include "allreduce_strategy.h"
#include "dtbench/descriptors.hpp"

namespace dtb::strategy::allreduce {

DTB_EXPORT_STRATEGY_PLUGIN(strategyDescriptor<AllreduceStrategy>(
    "allreduce", "0.1.0",
    "Baseline: one averaged all-reduce per gradient after backward, no bucketing or overlap"))

}  // namespace dtb::strategy::allreduce
