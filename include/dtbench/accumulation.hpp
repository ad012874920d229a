// accumulation.hpp — gradient accumulation without synchronisation (DDP's
// no_sync): the first k-1 micro-batches of a step only add their gradients
// into private sums; the last adds its own and hands on the mean, so k
// micro-batches of B equal one batch of kB. Optional C++ helper;
// header-only.
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
    if (params.dtype() != DTB_DTYPE_F32)
      throw Error(DTB_STATUS_UNSUPPORTED, std::string(params.strategy()) +
                                              ": gradient accumulation (accumulation_steps > 1) sums f32 "
                                              "gradients only so far; this run's are " +
                                              dtypeName(params.dtype()));
    if (params.size() > 0 && params[0].grad.device.type != DTB_DEVICE_HOST)
      throw Error(DTB_STATUS_UNSUPPORTED,
                  std::string(params.strategy()) +
                      ": gradient accumulation (accumulation_steps > 1) works on host "
                      "tensors only so far; this model's are on a GPU");
    for (const dtb_param_t* p : params) sums_.emplace_back(host, p->grad.count, DTB_MEM_GRADS);
  }

  uint32_t steps() const { return steps_; }
  bool accumulating() const { return steps_ > 1; }
  void beforeForward(const dtb_step_info_t& step) { microStep_ = step.micro_step; }
  uint32_t microStep() const { return microStep_; }
  // This micro-batch ends the step: its gradients are synchronised.
  bool lastMicroStep() const { return microStep_ + 1 == steps_; }

  // Adds parameter i's gradient, as it is now, into its sum.
  void add(uint32_t i) {
    const auto* grad = static_cast<const float*>(params_[i].grad.data);
    float* sum = sums_[i].data();
    for (uint64_t k = 0; k < sums_[i].size(); ++k) sum[k] += grad[k];
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
    const auto* grad = static_cast<const float*>(gradient.data);
    auto* to = static_cast<float*>(out);  // accumulation sums f32 only (the constructor says so)
    float* sum = sums_[i].data();
    for (uint64_t k = 0; k < count; ++k) {
      to[k] = (withGradient ? sum[k] + grad[k] : sum[k]) * scale;
      sum[k] = 0.0f;
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
