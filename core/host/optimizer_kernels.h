// What the host's optim_update service needs of a run's optimizer. The
// services are bound to one (train/optimizer.h is the one dtbench has), so
// host/ depends on this interface and not on train/, which sits above it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dtb::core {

// Whether a parameter's update includes weight decay: biases and norm
// scales usually do without (DTB_PARAM_FLAG_NO_WEIGHT_DECAY), as PyTorch
// users put them in a param group with weight_decay=0.
enum class WeightDecay { kApply, kSkip };

class OptimizerKernels {
 public:
  virtual ~OptimizerKernels() = default;
  // f32 state values per parameter element (SGD 0, or 1 with momentum; Adam 2).
  virtual uint32_t stateFloats() const = 0;
  // One update of `count` host elements; `state` holds stateFloats() x count
  // floats, zero before the first step.
  virtual void update(float* param, const float* grad, float* state, size_t count,
                      WeightDecay decay) const = 0;
  // The same on GPU `device`'s memory, queued there; throws GpuUnavailable
  // in a build without CUDA.
  virtual void updateOnGpu(float* param, const float* grad, float* state, size_t count, WeightDecay decay,
                           int device) = 0;
};

}  // namespace dtb::core
