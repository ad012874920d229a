// The optimizer of a mixed-precision run: the parameters and gradients a
// strategy hands optim_update are bf16 (or fp16), and the update happens on
// an f32 master copy of them, which is the first of the state floats a
// strategy keeps per element (so ZeRO shards it with the moments, as
// DeepSpeed counts K = 12 bytes for mixed-precision Adam: master, momentum,
// variance). Per slice:
//   master = the parameter widened, on the first applied step (DeepSpeed's
//            fp32 groups are copies of the half-precision model);
//   grad   = the gradient widened, divided by the loss scale;
//   master is updated by the run's optimizer (PyTorch's rules), and the
//   parameter rounded from it.
// A step the loss scaler skips leaves parameters, masters and moments be.
// In fp16 the strategy's optim_check settles each step first: this rank's
// gradients are checked (before their reduction, by MixedPrecision, and the
// reduced ones the strategy hands in), the ranks agree, the scaler decides,
// and an applied step is counted (Adam's bias correction counts those only,
// as DeepSpeed's skipped step never calls the optimizer).
#pragma once

#include "host/optimizer_kernels.h"
#include "train/mixed_precision.h"
#include "train/optimizer.h"

namespace dtb::core {

class MasterWeightOptimizer : public OptimizerKernels {
 public:
  MasterWeightOptimizer(Optimizer& optimizer, MixedPrecision& precision)
      : optimizer_(optimizer), precision_(precision) {}

  uint32_t stateFloats() const override { return 1 + optimizer_.stateFloats(); }
  dtb_dtype_t paramDtype() const override { return precision_.dtype(); }
  void updateLowPrecision(uint16_t* param, const uint16_t* grad, float* state, size_t count,
                          WeightDecay decay) override;
  // Every parameter is in the low precision: an f32 one is refused.
  void update(float* param, const float* grad, float* state, size_t count, WeightDecay decay) const override;
  // updateLowPrecision's work on the GPU (gpu_optimizer.h), fused as the
  // wrapped optimizer's config says.
  void updateManyOnGpu(const std::vector<GpuUpdateSlice>& slices, int device) override;
  dtb_device_t paramDevice() const override { return precision_.device(); }

  bool scalesLoss() const override { return precision_.scalesLoss(); }
  bool overflowIn(const dtb_tensor_t* grads, uint32_t count) const override;
  bool settleStep(bool anyOverflow) override;
  bool stepSettled() const override { return precision_.stepSettled(); }
  bool stepSkipped() const override { return precision_.skipping(); }
  bool releaseRecord(const dtb_param_t& param, dtb_param_part_t part) override {
    return precision_.release(param, part);
  }
  // Clipping is the wrapped optimizer's; the norm is of the unscaled gradients.
  double clipNorm() const override { return optimizer_.clipNorm(); }
  void setClip(double norm, float factor) override { optimizer_.setClip(norm, factor); }
  bool clipSet() const override { return optimizer_.clipSet(); }
  double squaredNorm(const dtb_tensor_t* grads, uint32_t count) const override;
  double squaredNormOnGpu(const dtb_tensor_t* grads, uint32_t count, int device) const override;

 private:
  Optimizer& optimizer_;
  MixedPrecision& precision_;
};

}  // namespace dtb::core
