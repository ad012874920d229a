// The optimizers a run can use, with PyTorch's update rules (torch.optim
// SGD, Adam, AdamW, default arguments), so that dtbench's training matches
// what the field runs. State lives with the caller — strategies own it, so
// ZeRO can shard it — as stateFloats() floats per parameter element.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "cuda/update_rule.h"
#include "host/optimizer_kernels.h"

namespace dtb::core {

struct OptimizerConfig {
  std::string kind = "sgd";  // sgd | adam | adamw
  double lr = 0.01;
  double momentum = 0;     // sgd
  bool nesterov = false;   // sgd
  double weightDecay = 0;  // sgd/adam: L2 added to the gradient; adamw: decoupled
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double clipNorm = 0;  // gradient_clipping: the global norm gradients are clipped to; 0: off
  // On a GPU, several parameters' updates in one kernel (fused_optimizer;
  // PyTorch's fused=True); false: a kernel per parameter, for comparison.
  bool fused = true;
};

class Optimizer : public OptimizerKernels {
 public:
  // Throws std::invalid_argument for an unknown kind or nesterov without momentum.
  explicit Optimizer(OptimizerConfig config);

  // f32 state values per parameter element: SGD 0 (1 with momentum), Adam 2.
  uint32_t stateFloats() const override;

  // The rate of the coming step (the schedule sets it), and the step count
  // that Adam's bias correction uses: call beginStep() once per step.
  void setLearningRate(double lr) { lr_ = lr; }
  double learningRate() const { return lr_; }
  void beginStep() { ++step_; }
  int64_t step() const { return step_; }
  // Goes on from a checkpoint's count (protocol/checkpoint.h).
  void restoreStep(int64_t step) { step_ = step; }

  // One update of `count` elements. `state` holds stateFloats() x count
  // floats, zero before the first step (state[i], then state[count + i]).
  // kSkip: this parameter's weight decay is 0, whatever the config says.
  void update(float* param, const float* grad, float* state, size_t count,
              WeightDecay decay = WeightDecay::kApply) const override;
  // The same on GPU `device`'s memory (param, grad and state all there),
  // queued on that GPU; settle() returns once every queued update has run.
  // Throws GpuUnavailable in a build without CUDA.
  void updateOnGpu(float* param, const float* grad, float* state, size_t count, WeightDecay decay,
                   int device);
  // Mixed precision's update on a GPU (gpu_optimizer.h's
  // gpuMasterWeightUpdate): `state` begins with the f32 master copy, made
  // from the parameters on the first applied step; the gradients are
  // multiplied by `unscale`. Queued, as updateOnGpu.
  void updateMasterOnGpu(dtb_dtype_t dtype, uint16_t* param, const uint16_t* grad, float* state, size_t count,
                         WeightDecay decay, float unscale, int device);
  // Several of those at once: `dtype` f32 (updateOnGpu) or the
  // low precision (updateMasterOnGpu, `unscale` for every slice), in a few
  // kernels when config().fused, else one kernel per slice.
  void updateManyOnGpu(const std::vector<GpuUpdateSlice>& slices, int device) override;
  void updateMasterManyOnGpu(dtb_dtype_t dtype, const std::vector<GpuUpdateSlice>& slices, float unscale,
                             int device);
  void settle();

  // Gradient clipping (optimizer_kernels.h): a step's updates multiply the
  // gradients by the factor optim_check set; beginUpdates() forgets the
  // last step's, before each optimizer step.
  double clipNorm() const override { return config_.clipNorm; }
  void setClip(double norm, float factor) override;
  bool clipSet() const override { return clipSet_; }
  void beginUpdates();
  // The last step's global norm, before clipping (NaN: not measured).
  double gradNorm() const { return gradNorm_; }
  float clipFactor() const { return clipFactor_; }
  double squaredNorm(const dtb_tensor_t* grads, uint32_t count) const override;
  double squaredNormOnGpu(const dtb_tensor_t* grads, uint32_t count, int device) const override;

  UpdateRule rule(WeightDecay decay) const;

  const OptimizerConfig& config() const { return config_; }

 private:
  using Kind = UpdateRule::Kind;
  OptimizerConfig config_;
  Kind kind_;
  double lr_;
  int64_t step_ = 0;
  int unsettledGpu_ = -1;  // the GPU with updates queued since the last settle(), or -1
  float clipFactor_ = 1;
  bool clipSet_ = false;
  double gradNorm_ = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace dtb::core
