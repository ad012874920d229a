#include "layer_modules.h"

#include "elementwise.h"

namespace dtb::nn {
namespace {

// Grows a buffer to `count` floats (never shrinks: the largest batch stays).
float* sized(std::vector<float>& buffer, uint64_t count) {
  if (buffer.size() < count) buffer.resize(count);
  return buffer.data();
}

}  // namespace

ConvModule::ConvModule(DnnlContext& ctx, const Conv2dSpec& spec, const ConvParameters& params)
    : layer_(params.layer),
      weight_(params.weight),
      bias_(params.bias),
      conv_(std::make_unique<Conv2d>(ctx, spec, weight_, bias_)) {}

Shape ConvModule::outputShape(const Shape& in) const {
  return {in.n, conv_->spec().out, conv_->outSize(in.h), conv_->outSize(in.w)};
}

const float* ConvModule::forward(const float* x, const Shape& in, const Pass& pass) {
  pass.begin(layer_, DTB_PASS_FORWARD);
  x_ = x;
  in_ = in;
  float* y = sized(y_, outputShape(in).count());
  conv_->forward(x, in.n, in.h, in.w, y);
  return y;
}

const float* ConvModule::backward(const float* dy, const Pass& pass, bool inputGrad) {
  pass.begin(layer_, DTB_PASS_BACKWARD);
  float* dx = inputGrad ? sized(dx_, in_.count()) : nullptr;
  conv_->backward(x_, dy, in_.n, in_.h, in_.w, dx);
  if (bias_) pass.ready(*bias_);
  pass.ready(weight_);
  return dx;
}

BatchNormModule::BatchNormModule(const AffineParameters& params, int64_t channels)
    : layer_(params.layer), weight_(params.weight), bias_(params.bias), norm_(channels, weight_, bias_) {}

const float* BatchNormModule::forward(const float* x, const Shape& in, const Pass& pass) {
  pass.begin(layer_, DTB_PASS_FORWARD);
  x_ = x;
  count_ = in.count();
  float* y = sized(y_, count_);
  norm_.forward(x, in.n, in.h, in.w, pass.training(), y);
  return y;
}

const float* BatchNormModule::backward(const float* dy, const Pass& pass, bool inputGrad) {
  pass.begin(layer_, DTB_PASS_BACKWARD);
  // dx comes with the parameter gradients at no extra cost: always computed.
  float* dx = sized(dx_, count_);
  norm_.backward(x_, dy, dx);
  pass.ready(bias_);
  pass.ready(weight_);
  return inputGrad ? dx : nullptr;
}

const float* ReluModule::forward(const float* x, const Shape& in, const Pass&) {
  count_ = in.count();
  float* y = sized(y_, count_);
  (clip_ ? relu6Forward : reluForward)(x, y, count_);
  return y;
}

const float* ReluModule::backward(const float* dy, const Pass&, bool inputGrad) {
  if (!inputGrad) return nullptr;
  float* dx = sized(dx_, count_);
  (clip_ ? relu6Backward : reluBackward)(y_.data(), dy, dx, count_);
  return dx;
}

Shape MaxPoolModule::outputShape(const Shape& in) const {
  return {in.n, in.c, spec_.outSize(in.h), spec_.outSize(in.w)};
}

const float* MaxPoolModule::forward(const float* x, const Shape& in, const Pass&) {
  in_ = in;
  float* y = sized(y_, outputShape(in).count());
  maxPoolForward(x, in.n, in.c, in.h, in.w, spec_, y, argmax_);
  return y;
}

const float* MaxPoolModule::backward(const float* dy, const Pass&, bool inputGrad) {
  if (!inputGrad) return nullptr;
  float* dx = sized(dx_, in_.count());
  maxPoolBackward(dy, argmax_, dx, in_.count());
  return dx;
}

const float* GlobalAvgPoolModule::forward(const float* x, const Shape& in, const Pass&) {
  in_ = in;
  float* y = sized(y_, static_cast<uint64_t>(in.n * in.c));
  globalAvgPoolForward(x, in.n * in.c, in.h * in.w, y);
  return y;
}

const float* GlobalAvgPoolModule::backward(const float* dy, const Pass&, bool inputGrad) {
  if (!inputGrad) return nullptr;
  float* dx = sized(dx_, in_.count());
  globalAvgPoolBackward(dy, in_.n * in_.c, in_.h * in_.w, dx);
  return dx;
}

LinearModule::LinearModule(DnnlContext& ctx, const AffineParameters& params, int64_t in, int64_t out)
    : layer_(params.layer),
      out_(out),
      weight_(params.weight),
      bias_(params.bias),
      linear_(std::make_unique<LinearLayer>(ctx, in, out, weight_, bias_)) {}

const float* LinearModule::forward(const float* x, const Shape& in, const Pass& pass) {
  pass.begin(layer_, DTB_PASS_FORWARD);
  x_ = x;
  n_ = in.n;
  float* y = sized(y_, static_cast<uint64_t>(in.n * out_));
  linear_->forward(x, in.n, y);
  return y;
}

const float* LinearModule::backward(const float* dy, const Pass& pass, bool inputGrad) {
  pass.begin(layer_, DTB_PASS_BACKWARD);
  const uint64_t inCount = static_cast<uint64_t>(n_) * weight_.shape()[1];
  float* dx = inputGrad ? sized(dx_, inCount) : nullptr;
  linear_->backward(x_, dy, n_, dx);
  pass.ready(bias_);
  pass.ready(weight_);
  return dx;
}

const float* DropoutModule::forward(const float* x, const Shape& in, const Pass& pass) {
  const double p = pass.training() ? p_ : 0.0;
  float* y = sized(y_, in.count());
  dropoutForward(x, y, in.count(), p, perChannel_ ? static_cast<uint64_t>(in.h * in.w) : 1, *draws_, mask_);
  return y;
}

const float* DropoutModule::backward(const float* dy, const Pass&, bool inputGrad) {
  if (!inputGrad) return nullptr;
  float* dx = sized(dx_, mask_.size());
  dropoutBackward(dy, mask_, dx, mask_.size());
  return dx;
}

}  // namespace dtb::nn
