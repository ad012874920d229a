// accumulation.hpp — gradient accumulation without synchronisation (DDP's
// no_sync): the first k-1 micro-batches of a step only add their gradients
// into private sums; the last adds its own and hands on the mean, so k
// micro-batches of B equal one batch of kB. The sums are f32 whatever the
// gradients are: bf16 / fp16 gradients of a mixed-precision run are widened
// into them and the mean rounded back once (DeepSpeed's bf16 optimizer
// accumulates in fp32 too). On a GPU (f32 there) the sums are GPU memory
// and each add, mean and reset is the host's tensor_copy, queued in order
// with the gradients' own work. Optional C++ helper; header-only.
//
//   dtb::GradAccumulator sums(host, params, setup.accumulation_steps);
//   void beforeForward(const dtb_step_info_t& s) { sums.beforeForward(s); }
//   if (!sums.lastMicroStep()) { sums.add(i); return; }   // nothing crosses the wire
//   sums.takeSum(i, out, 1.0f / sums.steps());              // out = the mean
#ifndef DTBENCH_ACCUMULATION_HPP
#define DTBENCH_ACCUMULATION_HPP

#include <cstdint>
#include <string>
#include <vector>

#include "dtbench/host_buffer.hpp"
#include "dtbench/param_set.hpp"
#include "dtbench/tensor_ops.hpp"

namespace dtb {

class GradAccumulator {
 public:
  // `steps` micro-batches per optimizer step (>= 1; one needs no memory).
  GradAccumulator(const dtb_host_t* host, const ParamSet& params, uint32_t steps)
      : params_(params), steps_(steps), ops_(host, params.strategy()) {
    if (steps == 0) {
      throw Error(DTB_STATUS_INVALID_ARGUMENT,
                  std::string(params.strategy()) + ": accumulation_steps must be >= 1");
    }
    if (steps == 1) return;
    // On a GPU (f32 there: the ParamSet sees to it) the sums live beside
    // the gradients, and every add, mean and reset is a tensor_copy queued
    // on the host's stream for that GPU, in order with the gradients' work.
    if (params.size() > 0) ops_.require(params[0].grad.device);
    for (const dtb_param_t* p : params)
      sums_.emplace_back(host, p->grad.count, DTB_MEM_GRADS, p->grad.device);
  }

  uint32_t steps() const { return steps_; }
  bool accumulating() const { return steps_ > 1; }
  void beforeForward(const dtb_step_info_t& step) { microStep_ = step.micro_step; }
  uint32_t microStep() const { return microStep_; }
  // This micro-batch ends the step: its gradients are synchronised.
  bool lastMicroStep() const { return microStep_ + 1 == steps_; }

  // Adds parameter i's gradient, as it is now, into its sum.
  void add(uint32_t i) {
    const dtb_tensor_t& gradient = params_[i].grad;
    if (gradient.device.type != DTB_DEVICE_HOST) {
      ops_.copy(sums_[i].tensor(), 0, gradient, 0, gradient.count, 1.0f, /*accumulate=*/true);
      return;
    }
    float* sum = sums_[i].data();
    for (uint64_t k = 0; k < sums_[i].size(); ++k) sum[k] += loadAsFloat(gradient.data, gradient.dtype, k);
  }

  // out = (the sum so far + parameter i's gradient) x scale, and the sum
  // starts again; `out` may be the gradient itself. A mean takes scale =
  // 1 / steps() (times whatever else the strategy folds in, e.g. 1 / world).
  // Without accumulation: out = gradient x scale. `withGradient = false`
  // leaves the gradient out (a parameter that got none this micro-batch).
  // `out` is memory of the gradient's device (a GPU's: the copy is queued
  // there, through the host's tensor_copy).
  void takeSum(uint32_t i, void* out, float scale, bool withGradient = true) {
    const dtb_tensor_t& gradient = params_[i].grad;
    const uint64_t count = gradient.count;
    if (!accumulating()) {  // `out` in the gradient's dtype (bf16 in mixed precision)
      const dtb_tensor_t to = flatTensor(out, count, gradient.device, gradient.dtype);
      if (withGradient)
        ops_.copy(to, 0, gradient, 0, count, scale);
      else
        ops_.zero(to, 0, count);
      return;
    }
    if (gradient.device.type != DTB_DEVICE_HOST) {  // f32
      const dtb_tensor_t sum = sums_[i].tensor();
      if (withGradient) ops_.copy(sum, 0, gradient, 0, count, 1.0f, /*accumulate=*/true);
      ops_.copy(flatTensor(out, count, gradient.device), 0, sum, 0, count, scale);
      ops_.zero(sum, 0, count);
      return;
    }
    // `out` in the gradient's dtype: the f32 mean, rounded once.
    float* sum = sums_[i].data();
    for (uint64_t k = 0; k < count; ++k) {
      const float mean =
          (withGradient ? sum[k] + loadAsFloat(gradient.data, gradient.dtype, k) : sum[k]) * scale;
      sum[k] = 0.0f;
      storeRounded(out, gradient.dtype, k, mean);
    }
  }

  // Bytes of the sums (counted as gradients).
  uint64_t bytes() const { return accumulating() ? params_.elements() * sizeof(float) : 0; }

 private:
  const ParamSet& params_;
  uint32_t steps_;
  uint32_t microStep_ = 0;
  std::vector<HostBuffer<float>> sums_;
  TensorOps ops_;
};

}  // namespace dtb

#endif  // DTBENCH_ACCUMULATION_HPP
