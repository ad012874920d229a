// The naive data-parallel baseline every other strategy is compared with:
// after backward, one all-reduce (average) per gradient tensor, all issued
// together and then waited for; no bucketing, no overlap with backward.
// Host tensors, or a model on a GPU (with a backend that moves GPU memory:
// NCCL), whose optimizer state then lives on that GPU.
//
// Gradient accumulation (accumulation_steps = k): the first k-1
// micro-batches only add their gradients into a private buffer (no
// communication); the last adds its own, divides by k — the mean over the k
// micro-batches, so k micro-batches of B equal one batch of kB — and
// all-reduces.
#pragma once

#include "dtbench/accumulation.hpp"
#include "dtbench/optimizer_state.hpp"
#include "dtbench/param_set.hpp"

namespace dtb::strategy::allreduce {

class AllreduceStrategy {
 public:
  AllreduceStrategy(const dtb_host_t* host, const dtb_strategy_setup_t& setup);

  const dtb_host_t* host() const { return host_; }
  void beforeForward(const dtb_step_info_t& step) { sums_.beforeForward(step); }
  void finishBackward();
  void step() { optimizer_.update(); }
  void memoryReport(dtb_memory_report_t* out) const {
    replicatedMemoryReport(params_, optimizer_, sums_.bytes(), 0, out);
  }
  // The optimizer state (momentum, Adam's moments): checkpoints and restarts.
  uint64_t stateSize() const { return optimizer_.savedBytes(); }
  void saveState(void* out, uint64_t bytes) const { optimizer_.saveTo(out, bytes); }
  void loadState(const void* in, uint64_t bytes) { optimizer_.loadFrom(in, bytes); }

 private:
  const dtb_host_t* host_;
  ParamSet params_;
  GradAccumulator sums_;
  OptimizerState optimizer_;
};

}  // namespace dtb::strategy::allreduce
