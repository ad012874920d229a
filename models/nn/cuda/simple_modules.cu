// The modules without parameters: ReLU, pooling, dropout, the residual sum.
#include "cuda_check.h"
#include "cuda_modules.h"
#include "kernels.h"

namespace dtb::nn::cuda {

const float* ReluModule::forward(const float* x, const Shape& in, const Pass&) {
  count_ = in.count();
  float* y = y_.floats(count_);
  reluForward(ctx_.stream(), x, y, count_, clip_);
  return y;
}

const float* ReluModule::backward(const float* dy, const Pass&, bool inputGrad) {
  if (!inputGrad) return nullptr;
  float* dx = dx_.floats(count_);
  reluBackward(ctx_.stream(), static_cast<const float*>(y_.data()), dy, dx, count_, clip_);
  return dx;
}

Shape MaxPoolModule::outputShape(const Shape& in) const {
  return {in.n, in.c, spec_.outSize(in.h), spec_.outSize(in.w)};
}

const float* MaxPoolModule::forward(const float* x, const Shape& in, const Pass&) {
  in_ = in;
  const uint64_t outCount = outputShape(in).count();
  float* y = y_.floats(outCount);
  auto* argmax = static_cast<int32_t*>(argmax_.bytes(outCount * sizeof(int32_t)));
  maxPoolForward(ctx_.stream(), x, in.n, in.c, in.h, in.w, spec_, y, argmax);
  return y;
}

const float* MaxPoolModule::backward(const float* dy, const Pass&, bool inputGrad) {
  if (!inputGrad) return nullptr;
  float* dx = dx_.floats(in_.count());
  maxPoolBackward(ctx_.stream(), dy, static_cast<const int32_t*>(argmax_.data()), outputShape(in_).count(),
                  dx, in_.count());
  return dx;
}

const float* GlobalAvgPoolModule::forward(const float* x, const Shape& in, const Pass&) {
  in_ = in;
  float* y = y_.floats(static_cast<uint64_t>(in.n * in.c));
  globalAvgPoolForward(ctx_.stream(), x, in.n * in.c, in.h * in.w, y);
  return y;
}

const float* GlobalAvgPoolModule::backward(const float* dy, const Pass&, bool inputGrad) {
  if (!inputGrad) return nullptr;
  float* dx = dx_.floats(in_.count());
  globalAvgPoolBackward(ctx_.stream(), dy, in_.n * in_.c, in_.h * in_.w, dx);
  return dx;
}

const float* DropoutModule::forward(const float* x, const Shape& in, const Pass& pass) {
  count_ = in.count();
  float* y = y_.floats(count_);
  // Evaluation keeps everything (p = 0 makes every mask value 1).
  const uint64_t drawEvery = perChannel_ ? static_cast<uint64_t>(in.h * in.w) : 1;
  const double p = pass.training() ? p_ : 0.0;
  // A call that drops nothing draws nothing from the seed's stream, as on the host.
  dropoutForward(ctx_.stream(), x, y, mask_.floats(count_), count_, drawEvery, p, seed_,
                 p > 0 ? (*calls_)++ : 0);
  return y;
}

const float* DropoutModule::backward(const float* dy, const Pass&, bool inputGrad) {
  if (!inputGrad) return nullptr;
  float* dx = dx_.floats(count_);
  multiply(ctx_.stream(), dy, static_cast<const float*>(mask_.data()), dx, count_);
  return dx;
}

const float* Residual::forward(const float* x, const Shape& in, const Pass& pass) {
  inCount_ = in.count();
  outCount_ = outputShape(in).count();
  const float* a = main_->forward(x, in, pass);
  const float* s = shortcut_ ? shortcut_->forward(x, in, pass) : x;
  float* y = y_.floats(outCount_);
  addForward(ctx_.stream(), a, s, y, outCount_, reluAfter_);
  return y;
}

const float* Residual::backward(const float* dy, const Pass& pass, bool inputGrad) {
  if (reluAfter_) {
    float* dsum = dsum_.floats(outCount_);
    reluBackward(ctx_.stream(), static_cast<const float*>(y_.data()), dy, dsum, outCount_, false);
    dy = dsum;
  }
  // The shortcut first, as on the host (PyTorch's autograd order).
  const float* ds = shortcut_ ? shortcut_->backward(dy, pass, inputGrad) : dy;
  const float* dm = main_->backward(dy, pass, inputGrad);
  if (!inputGrad) return nullptr;
  float* dx = dx_.floats(inCount_);
  addForward(ctx_.stream(), dm, ds, dx, inCount_, false);
  return dx;
}

}  // namespace dtb::nn::cuda
