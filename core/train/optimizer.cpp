#include "train/optimizer.h"

#include <cmath>
#include <stdexcept>

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

void Optimizer::update(float* param, const float* grad, float* state, size_t count, WeightDecay decay) const {
  const float lr = static_cast<float>(lr_);
  const float wd = decay == WeightDecay::kApply ? static_cast<float>(config_.weightDecay) : 0.0f;
  if (kind_ == Kind::kSgd) {
    const float momentum = static_cast<float>(config_.momentum);
    for (size_t i = 0; i < count; ++i) {
      float g = grad[i] + wd * param[i];
      if (momentum > 0) {
        // PyTorch starts the buffer at the first gradient; from a zero
        // buffer, momentum x 0 + g is the same.
        state[i] = momentum * state[i] + g;
        g = config_.nesterov ? g + momentum * state[i] : state[i];
      }
      param[i] -= lr * g;
    }
    return;
  }
  const double t = static_cast<double>(step_ > 0 ? step_ : 1);
  const float beta1 = static_cast<float>(config_.beta1);
  const float beta2 = static_cast<float>(config_.beta2);
  const float biasCorrection1 = static_cast<float>(1.0 - std::pow(config_.beta1, t));
  const float sqrtBiasCorrection2 = static_cast<float>(std::sqrt(1.0 - std::pow(config_.beta2, t)));
  const float stepSize = lr / biasCorrection1;
  const float eps = static_cast<float>(config_.eps);
  float* m = state;
  float* v = state + count;
  for (size_t i = 0; i < count; ++i) {
    float g = grad[i];
    if (kind_ == Kind::kAdamW) {
      param[i] *= 1.0f - lr * wd;  // decoupled decay (Loshchilov & Hutter)
    } else {
      g += wd * param[i];  // L2, as torch.optim.Adam does
    }
    m[i] = beta1 * m[i] + (1.0f - beta1) * g;
    v[i] = beta2 * v[i] + (1.0f - beta2) * g * g;
    const float denominator = std::sqrt(v[i]) / sqrtBiasCorrection2 + eps;
    param[i] -= stepSize * m[i] / denominator;
  }
}

}  // namespace dtb::core
