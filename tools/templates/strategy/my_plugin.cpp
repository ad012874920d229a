// my_plugin — a dtbench strategy. It starts as the baseline every strategy is
// measured against: after backward, each gradient averaged over the ranks by
// one all-reduce, then the run's optimizer on every parameter. Change
// finishBackward() and step(); `ctest` checks it still loads, runs and ends
// where the built-in allreduce does (compare.sql: relax that once the math
// differs). docs/writing-a-strategy.md walks through one.
#include <string>

#include "dtbench/descriptors.hpp"
#include "dtbench/optimizer_state.hpp"
#include "dtbench/param_set.hpp"
#include "dtbench/requests.hpp"

namespace {

class MyPlugin {
 public:
  MyPlugin(const dtb_host_t* host, const dtb_strategy_setup_t& setup)
      : host_(host), params_("my_plugin", setup), optimizer_(host, params_) {
    // k micro-batches per step would need their gradients summed first (dtbench/accumulation.hpp).
    if (setup.accumulation_steps != 1) {
      throw dtb::Error(DTB_STATUS_UNSUPPORTED,
                       "my_plugin: gradient accumulation is not implemented (accumulation_steps = " +
                           std::to_string(setup.accumulation_steps) + ")");
    }
  }

  const dtb_host_t* host() const { return host_; }

  // Backward is over: average every gradient, all the all-reduces in flight
  // at once, then wait for each (time spent here is exposed communication).
  void finishBackward() {
    // (dtb::Requests in a loop: requests.hpp, for other collectives or orders.)
    dtb::allreduceEach(host_, params_, &dtb_param_t::grad, DTB_REDUCE_AVG);
  }

  // The run's optimizer (sgd, adam, adamw: the matrix says) on every parameter.
  void step() { optimizer_.update(); }

  // What this rank holds, for the run's memory figures.
  void memoryReport(dtb_memory_report_t* out) const {
    dtb::replicatedMemoryReport(params_, optimizer_, 0, 0, out);
  }

 private:
  const dtb_host_t* host_;
  dtb::ParamSet params_;
  dtb::OptimizerState optimizer_;
};

}  // namespace

DTB_EXPORT_STRATEGY_PLUGIN(dtb::strategyDescriptor<MyPlugin>(
    "my_plugin", "0.1.0",
    "One averaged all-reduce per gradient after backward (dtbench new's starting point)"))
