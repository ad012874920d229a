// The allreduce strategy plugin: the C ABI over AllreduceStrategy.
#include "allreduce_strategy.h"
#include "dtbench/plugin.hpp"

namespace dtb::strategy::allreduce {
namespace {

AllreduceStrategy* self(void* p) { return static_cast<AllreduceStrategy*>(p); }

dtb_strategy_plugin_v1_t makeDescriptor() {
  dtb_strategy_plugin_v1_t d{};
  d.header = {sizeof(dtb_strategy_plugin_v1_t), DTB_ABI_VERSION, DTB_PLUGIN_STRATEGY, "allreduce", "0.1.0",
              "Baseline: one averaged all-reduce per gradient after backward, no bucketing or overlap", nullptr, 0};
  d.create = [](const dtb_host_t* host, const dtb_strategy_setup_t* setup, void** out) {
    return guard(host, [&] { *out = new AllreduceStrategy(host, *setup); });
  };
  d.destroy = [](void* p) { delete self(p); };
  d.before_forward = [](void* p, const dtb_step_info_t* step) {
    return guard(self(p)->host(), [&] { self(p)->beforeForward(*step); });
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
}  // namespace dtb::strategy::allreduce

extern "C" const dtb_strategy_plugin_v1_t* dtb_strategy_plugin_v1(void) {
  return &dtb::strategy::allreduce::kDescriptor;
}
