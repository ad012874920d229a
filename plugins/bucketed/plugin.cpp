// The bucketed strategy plugin: the C ABI over BucketedStrategy.
#include <iterator>

#include "bucketed_strategy.h"
#include "dtbench/descriptors.hpp"

namespace dtb::strategy::bucketed {
namespace {

const dtb_param_spec_t kParams[] = {
    {sizeof(dtb_param_spec_t), "bucket_cap_mb", DTB_PARAM_FLOAT, "25",
     "Size limit of every bucket but the first, in MiB (DDP's bucket_cap_mb); a bucket closes once it "
     "reaches it",
     DTB_PARAM_HAS_MIN, 0, 0, nullptr},
    {sizeof(dtb_param_spec_t), "first_bucket_mb", DTB_PARAM_FLOAT, "1",
     "Size limit of the first bucket after the rebuild, in MiB (DDP's _DEFAULT_FIRST_BUCKET_BYTES)",
     DTB_PARAM_HAS_MIN, 0, 0, nullptr},
    {sizeof(dtb_param_spec_t), "gradient_as_bucket_view", DTB_PARAM_BOOL, "false",
     "Gradients live in the buckets: no copies in or out, one gradient copy in memory", 0, 0, 0, nullptr},
    {sizeof(dtb_param_spec_t), "find_unused_parameters", DTB_PARAM_BOOL, "false",
     "Reduce parameters that got no gradient as zeros instead of failing the step (and never rebuild "
     "buckets)",
     0, 0, 0, nullptr},
    {sizeof(dtb_param_spec_t), "comm_hook", DTB_PARAM_STRING, "allreduce",
     "DDP communication hook: allreduce (f32), fp16 or bf16 (fp16_compress_hook / bf16_compress_hook), "
     "powersgd",
     0, 0, 0, "allreduce|fp16|bf16|powersgd"},
    {sizeof(dtb_param_spec_t), "powersgd_rank", DTB_PARAM_INT, "1", "PowerSGD's matrix_approximation_rank",
     DTB_PARAM_HAS_MIN, 1, 0, nullptr},
    {sizeof(dtb_param_spec_t), "powersgd_start_iter", DTB_PARAM_INT, "1000",
     "Steps of plain all-reduce before PowerSGD starts (start_powerSGD_iter)", DTB_PARAM_HAS_MIN, 0, 0,
     nullptr},
    {sizeof(dtb_param_spec_t), "powersgd_min_compression_rate", DTB_PARAM_FLOAT, "2",
     "A matrix n x m is compressed only when (n + m) x rank x this < n x m", DTB_PARAM_HAS_MIN, 0, 0,
     nullptr},
    {sizeof(dtb_param_spec_t), "powersgd_error_feedback", DTB_PARAM_BOOL, "true",
     "Add what the last compression missed to the next step's gradients (use_error_feedback)", 0, 0, 0,
     nullptr},
    {sizeof(dtb_param_spec_t), "powersgd_warm_start", DTB_PARAM_BOOL, "true",
     "Start each step's power iteration from the last step's Q (warm_start)", 0, 0, 0, nullptr},
    {sizeof(dtb_param_spec_t), "powersgd_seed", DTB_PARAM_INT, "0", "Seed of the first Q (random_seed)",
     DTB_PARAM_HAS_MIN, 0, 0, nullptr},
};

const dtb_strategy_plugin_v1_t kDescriptor = strategyDescriptor<BucketedStrategy>(
    {sizeof(dtb_strategy_plugin_v1_t), DTB_ABI_VERSION, DTB_PLUGIN_STRATEGY, "bucketed", "0.1.0",
     "PyTorch DDP's reducer: gradient buckets all-reduced during backward, rebuilt in ready order", kParams,
     std::size(kParams)});

}  // namespace
}  // namespace dtb::strategy::bucketed

extern "C" const dtb_strategy_plugin_v1_t* dtb_strategy_plugin_v1(void) {
  return &dtb::strategy::bucketed::kDescriptor;
}
