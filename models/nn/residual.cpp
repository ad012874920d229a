#include "residual.h"

namespace dtb::nn {

Residual::Residual(std::unique_ptr<Module> main, std::unique_ptr<Module> shortcut, bool reluAfter)
    : main_(std::move(main)), shortcut_(std::move(shortcut)), reluAfter_(reluAfter) {}

const float* Residual::forward(const float* x, const Shape& in, const Pass& pass) {
  inCount_ = in.count();
  outCount_ = outputShape(in).count();
  const float* a = main_->forward(x, in, pass);
  const float* s = shortcut_ ? shortcut_->forward(x, in, pass) : x;
  if (y_.size() < outCount_) y_.resize(outCount_);
#pragma omp parallel for if (outCount_ >= (1 << 15))
  for (uint64_t i = 0; i < outCount_; ++i) {
    const float sum = a[i] + s[i];
    y_[i] = reluAfter_ && sum < 0 ? 0.0f : sum;
  }
  return y_.data();
}

const float* Residual::backward(const float* dy, const Pass& pass, bool inputGrad) {
  if (reluAfter_) {
    if (dsum_.size() < outCount_) dsum_.resize(outCount_);
#pragma omp parallel for if (outCount_ >= (1 << 15))
    for (uint64_t i = 0; i < outCount_; ++i) dsum_[i] = y_[i] > 0 ? dy[i] : 0.0f;
    dy = dsum_.data();
  }
  // The shortcut first: PyTorch's autograd reaches it first too (it is
  // computed after the main path), so gradients become ready in that order.
  const float* ds = shortcut_ ? shortcut_->backward(dy, pass, inputGrad) : dy;
  const float* dm = main_->backward(dy, pass, inputGrad);
  if (!inputGrad) return nullptr;
  if (dx_.size() < inCount_) dx_.resize(inCount_);
#pragma omp parallel for if (inCount_ >= (1 << 15))
  for (uint64_t i = 0; i < inCount_; ++i) dx_[i] = dm[i] + ds[i];
  return dx_.data();
}

}  // namespace dtb::nn
