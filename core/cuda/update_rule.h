// One optimizer step's update, reduced to scalars (train/optimizer.h makes
// it from the run's optimizer): what the host's loop (train/optimizer.cpp)
// and the GPU kernels (gpu_optimizer.cu) both compute from, so the two
// cannot drift. It lives here, on the ground floor beside the kernels, so
// that cuda/ depends on nothing above it.
#pragma once

namespace dtb::core {

struct UpdateRule {
  enum class Kind { kSgd, kAdam, kAdamW } kind = Kind::kSgd;
  float lr = 0, weightDecay = 0;
  float momentum = 0;  // sgd; 0: no state
  bool nesterov = false;
  float beta1 = 0, beta2 = 0, eps = 0;
  // Adam's bias corrections at this step: lr / (1 - beta1^t), sqrt(1 - beta2^t).
  float stepSize = 0, sqrtBiasCorrection2 = 1;
  // gradient_clipping: the step's clip factor, which multiplies each
  // gradient before anything else reads it (clip_grad_norm_ in place).
  float clip = 1;
};

}  // namespace dtb::core
