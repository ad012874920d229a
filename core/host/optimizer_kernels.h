// What the host's optim_update service needs of a run's optimizer. The
// services are bound to one (train/optimizer.h is the one dtbench has), so
// host/ depends on this interface and not on train/, which sits above it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "dtbench/dtbench.h"
#include "dtbench/model.h"

namespace dtb::core {

// Whether a parameter's update includes weight decay: biases and norm
// scales usually do without (DTB_PARAM_FLAG_NO_WEIGHT_DECAY), as PyTorch
// users put them in a param group with weight_decay=0.
enum class WeightDecay { kApply, kSkip };

// One update of those queued together on a GPU (optim_update, optim_update_many):
// `count` elements of the run's parameter dtype, `state` as update()'s.
struct GpuUpdateSlice {
  void* param;
  const void* grad;
  float* state;
  size_t count;
  WeightDecay decay;
};

class OptimizerKernels {
 public:
  virtual ~OptimizerKernels() = default;
  // f32 state values per parameter element (SGD 0, or 1 with momentum; Adam 2).
  virtual uint32_t stateFloats() const = 0;
  // One update of `count` host elements; `state` holds stateFloats() x count
  // floats, zero before the first step.
  virtual void update(float* param, const float* grad, float* state, size_t count,
                      WeightDecay decay) const = 0;
  // The same on GPU `device`'s memory, of one slice (optim_update) or many
  // (optim_update_many), in paramDtype() (the low precision's as
  // updateLowPrecision's): queued there, fused into a few multi-tensor
  // kernels unless the run turned that off. The host has checked every
  // slice's state is that GPU's memory. Throws GpuUnavailable in a build
  // without CUDA.
  virtual void updateManyOnGpu(const std::vector<GpuUpdateSlice>& slices, int device) = 0;

  // The dtype of the parameters and gradients optim_update takes: f32, or
  // bf16 / f16 in a mixed-precision run (train/master_weights.h).
  virtual dtb_dtype_t paramDtype() const { return DTB_DTYPE_F32; }
  // Where a mixed-precision run's records live (the host unless the model
  // is on a GPU): where optim_check may find the gradients it checks.
  virtual dtb_device_t paramDevice() const { return {DTB_DEVICE_HOST, 0}; }
  // One update of `count` low-precision host elements (paramDtype()); the
  // state then begins with their f32 master copy. Only where paramDtype()
  // is not f32.
  virtual void updateLowPrecision(uint16_t* /*param*/, const uint16_t* /*grad*/, float* /*state*/,
                                  size_t /*count*/, WeightDecay /*decay*/) {
    throw std::logic_error("optim_update: this run trains in f32");
  }

  // fp16's loss scaling, step by step (the host's optim_check): whether the
  // run scales its loss; whether this rank's gradients overflowed, before
  // their reduction or in `grads` (what it updates from, reduced, on the
  // host or, where paramDevice() is a GPU, on that GPU); the step
  // settled once every rank's answer is known (false: skipped); and whether
  // this step was settled yet (optim_update waits for it).
  virtual bool scalesLoss() const { return false; }
  virtual bool overflowIn(const dtb_tensor_t* /*grads*/, uint32_t /*count*/) const { return false; }
  virtual bool settleStep(bool /*anyOverflow*/) { return true; }
  virtual bool stepSettled() const { return true; }
  virtual bool stepSkipped() const { return false; }

  // Gradient clipping by global norm (the run's gradient_clipping; 0: off),
  // as PyTorch's clip_grad_norm_ and DeepSpeed's gradient_clipping: the
  // host's optim_check measures the L2 norm of a step's gradients over every
  // rank (after unscaling) and sets the factor the step's updates multiply
  // them by, min(1, max / (norm + 1e-6)); whether it was set this step.
  virtual double clipNorm() const { return 0; }
  virtual void setClip(double /*norm*/, float /*factor*/) {}
  virtual bool clipSet() const { return true; }
  // The sum of the squares of `count` host gradients of paramDtype(),
  // unscaled (f64, so a long sum keeps its digits).
  virtual double squaredNorm(const dtb_tensor_t* grads, uint32_t count) const = 0;
  // The same of gradients on GPU `device` (a kernel, then one wait); throws
  // GpuUnavailable in a build without CUDA.
  virtual double squaredNormOnGpu(const dtb_tensor_t* grads, uint32_t count, int device) const = 0;

  // Mixed precision: the strategy's parameter records are the host's
  // low-precision copies, so param_release gives back their storage, not
  // the model's (which computes in f32 from its own). False: `param` is not
  // one of the records.
  virtual bool releaseRecord(const dtb_param_t& /*param*/, dtb_param_part_t /*part*/) { return false; }
};

}  // namespace dtb::core
