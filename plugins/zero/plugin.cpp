// The zero strategy plugin: the C ABI over ZeroStrategy.
#include "dtbench/plugin.hpp"
#include "zero_strategy.h"

namespace dtb::strategy::zero {
namespace {

ZeroStrategy* self(void* p) { return static_cast<ZeroStrategy*>(p); }

const dtb_param_spec_t kParams[] = {
    {sizeof(dtb_param_spec_t), "stage", DTB_PARAM_INT, "1",
     "1: shard optimizer state; 2: and gradients; 3: and parameters", DTB_PARAM_HAS_MIN | DTB_PARAM_HAS_MAX, 1, 3,
     nullptr},
    {sizeof(dtb_param_spec_t), "reduce_bucket_size", DTB_PARAM_INT, "500000000",
     "Stages 1-2: elements per gradient reduction bucket (DeepSpeed's reduce_bucket_size)", DTB_PARAM_HAS_MIN, 1, 0,
     nullptr},
    {sizeof(dtb_param_spec_t), "param_persistence_threshold", DTB_PARAM_INT, "100000",
     "Stage 3: layers with fewer parameter elements stay gathered (stage3_param_persistence_threshold)",
     DTB_PARAM_HAS_MIN, 0, 0, nullptr},
    {sizeof(dtb_param_spec_t), "reduce_scatter", DTB_PARAM_BOOL, "true",
     "Reduce gradients with a reduce-scatter; false: all-reduce each bucket and keep this rank's slice, as DeepSpeed's "
     "stage 1/2 code does",
     0, 0, 0, nullptr},
};

dtb_strategy_plugin_v1_t makeDescriptor() {
  dtb_strategy_plugin_v1_t d{};
  d.header = {sizeof(dtb_strategy_plugin_v1_t), DTB_ABI_VERSION, DTB_PLUGIN_STRATEGY, "zero", "0.1.0",
              "DeepSpeed ZeRO stages 1-3: optimizer state, gradients and parameters sharded over the ranks", kParams,
              sizeof(kParams) / sizeof(kParams[0])};
  d.create = [](const dtb_host_t* host, const dtb_strategy_setup_t* setup, void** out) {
    return guard(host, [&] { *out = new ZeroStrategy(host, *setup); });
  };
  d.destroy = [](void* p) { delete self(p); };
  d.before_forward = [](void* p, const dtb_step_info_t* step) {
    return guard(self(p)->host(), [&] { self(p)->beforeForward(*step); });
  };
  d.layer_begin = [](void* p, uint32_t layer, dtb_pass_t pass) {
    return guard(self(p)->host(), [&] { self(p)->layerBegin(layer, pass); });
  };
  d.grad_ready = [](void* p, dtb_param_t* param) {
    return guard(self(p)->host(), [&] { self(p)->gradReady(param); });
  };
  d.finish_backward = [](void* p) { return guard(self(p)->host(), [&] { self(p)->finishBackward(); }); };
  d.step = [](void* p) { return guard(self(p)->host(), [&] { self(p)->step(); }); };
  d.memory_report = [](void* p, dtb_memory_report_t* out) {
    return guard(self(p)->host(), [&] { self(p)->memoryReport(out); });
  };
  return d;
}

const dtb_strategy_plugin_v1_t kDescriptor = makeDescriptor();

}  // namespace
}  // namespace dtb::strategy::zero

extern "C" const dtb_strategy_plugin_v1_t* dtb_strategy_plugin_v1(void) {
  return &dtb::strategy::zero::kDescriptor;
}
