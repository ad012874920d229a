#include "train/optimizer.h"

#include <cmath>
#include <stdexcept>

#include "cuda/gpu_norm.h"
#include "cuda/gpu_optimizer.h"

namespace dtb::core {

Optimizer::Optimizer(OptimizerConfig config) : config_(std::move(config)), lr_(config_.lr) {
  if (config_.kind == "sgd") {
    kind_ = Kind::kSgd;
  } else if (config_.kind == "adam") {
    kind_ = Kind::kAdam;
  } else if (config_.kind == "adamw") {
    kind_ = Kind::kAdamW;
  } else {
    throw std::invalid_argument("unknown optimizer '" + config_.kind + "' (sgd, adam, adamw)");
  }
  if (config_.nesterov && (kind_ != Kind::kSgd || config_.momentum <= 0)) {
    throw std::invalid_argument("nesterov needs SGD with momentum > 0 (as in torch.optim.SGD)");
  }
}

uint32_t Optimizer::stateFloats() const {
  if (kind_ == Kind::kSgd) return config_.momentum > 0 ? 1 : 0;
  return 2;
}

UpdateRule Optimizer::rule(WeightDecay decay) const {
  UpdateRule r;
  r.kind = kind_;
  r.lr = static_cast<float>(lr_);
  r.weightDecay = decay == WeightDecay::kApply ? static_cast<float>(config_.weightDecay) : 0.0f;
  r.momentum = static_cast<float>(config_.momentum);
  r.nesterov = config_.nesterov;
  r.beta1 = static_cast<float>(config_.beta1);
  r.beta2 = static_cast<float>(config_.beta2);
  r.eps = static_cast<float>(config_.eps);
  r.clip = clipFactor_;
  if (kind_ != Kind::kSgd) {
    const double t = static_cast<double>(step_ > 0 ? step_ : 1);
    r.stepSize = r.lr / static_cast<float>(1.0 - std::pow(config_.beta1, t));
    r.sqrtBiasCorrection2 = static_cast<float>(std::sqrt(1.0 - std::pow(config_.beta2, t)));
  }
  return r;
}

void Optimizer::setClip(double norm, float factor) {
  gradNorm_ = norm;
  clipFactor_ = factor;
  clipSet_ = true;
}

void Optimizer::beginUpdates() {
  clipFactor_ = 1;
  clipSet_ = false;
  gradNorm_ = std::numeric_limits<double>::quiet_NaN();
}

double Optimizer::squaredNormOnGpu(const dtb_tensor_t* grads, uint32_t count, int device) const {
  return gpuSquaredNorm(grads, count, device);
}

double Optimizer::squaredNorm(const dtb_tensor_t* grads, uint32_t count) const {
  double sum = 0;
  for (uint32_t t = 0; t < count; ++t) {
    const auto* g = static_cast<const float*>(grads[t].data);
    for (uint64_t i = 0; i < grads[t].count; ++i) sum += static_cast<double>(g[i]) * g[i];
  }
  return sum;
}

void Optimizer::update(float* param, const float* grad, float* state, size_t count, WeightDecay decay) const {
  const UpdateRule r = rule(decay);
  // Clipping scales the gradient before anything else reads it, as
  // clip_grad_norm_ does in place before optimizer.step().
  const float clip = r.clip;
  if (kind_ == Kind::kSgd) {
    for (size_t i = 0; i < count; ++i) {
      float g = clip * grad[i] + r.weightDecay * param[i];
      if (r.momentum > 0) {
        // PyTorch starts the buffer at the first gradient; from a zero
        // buffer, momentum x 0 + g is the same.
        state[i] = r.momentum * state[i] + g;
        g = r.nesterov ? g + r.momentum * state[i] : state[i];
      }
      param[i] -= r.lr * g;
    }
    return;
  }
  float* m = state;
  float* v = state + count;
  for (size_t i = 0; i < count; ++i) {
    float g = clip * grad[i];
    if (kind_ == Kind::kAdamW) {
      param[i] *= 1.0f - r.lr * r.weightDecay;  // decoupled decay (Loshchilov & Hutter)
    } else {
      g += r.weightDecay * param[i];  // L2, as torch.optim.Adam does
    }
    m[i] = r.beta1 * m[i] + (1.0f - r.beta1) * g;
    v[i] = r.beta2 * v[i] + (1.0f - r.beta2) * g * g;
    const float denominator = std::sqrt(v[i]) / r.sqrtBiasCorrection2 + r.eps;
    param[i] -= r.stepSize * m[i] / denominator;
  }
}

void Optimizer::updateOnGpu(float* param, const float* grad, float* state, size_t count, WeightDecay decay,
                            int device) {
  gpuOptimizerUpdate(rule(decay), param, grad, state, count, device);
  unsettledGpu_ = device;
}

void Optimizer::updateMasterOnGpu(dtb_dtype_t dtype, uint16_t* param, const uint16_t* grad, float* state,
                                  size_t count, WeightDecay decay, float unscale, int device) {
  gpuMasterWeightUpdate(rule(decay), dtype, param, grad, state, count, unscale, step_ == 1, device);
  unsettledGpu_ = device;
}

namespace {

std::vector<MultiTensorSlice> multiTensorSlices(const Optimizer& optimizer,
                                                const std::vector<GpuUpdateSlice>& slices) {
  const float decays[] = {optimizer.rule(WeightDecay::kApply).weightDecay,
                          optimizer.rule(WeightDecay::kSkip).weightDecay};
  std::vector<MultiTensorSlice> out;
  out.reserve(slices.size());
  for (const GpuUpdateSlice& s : slices)
    out.push_back({s.param, s.grad, s.state, s.count, decays[s.decay == WeightDecay::kSkip ? 1 : 0]});
  return out;
}

}  // namespace

void Optimizer::updateManyOnGpu(const std::vector<GpuUpdateSlice>& slices, int device) {
  if (!config_.fused) {
    for (const GpuUpdateSlice& s : slices)
      updateOnGpu(static_cast<float*>(s.param), static_cast<const float*>(s.grad), s.state, s.count, s.decay,
                  device);
    return;
  }
  gpuOptimizerUpdateMany(rule(WeightDecay::kApply), multiTensorSlices(*this, slices), device);
  unsettledGpu_ = device;
}

void Optimizer::updateMasterManyOnGpu(dtb_dtype_t dtype, const std::vector<GpuUpdateSlice>& slices,
                                      float unscale, int device) {
  if (!config_.fused) {
    for (const GpuUpdateSlice& s : slices)
      updateMasterOnGpu(dtype, static_cast<uint16_t*>(s.param), static_cast<const uint16_t*>(s.grad), s.state,
                        s.count, s.decay, unscale, device);
    return;
  }
  gpuMasterWeightUpdateMany(rule(WeightDecay::kApply), dtype, multiTensorSlices(*this, slices), unscale,
                            step_ == 1, device);
  unsettledGpu_ = device;
}

void Optimizer::settle() {
  if (unsettledGpu_ < 0) return;
  const int device = unsettledGpu_;
  unsettledGpu_ = -1;
  gpuSynchronize(device);
}

}  // namespace dtb::core
