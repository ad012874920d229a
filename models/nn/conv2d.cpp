#include "conv2d.h"

namespace dtb::nn {

using dnnl::memory;
using tag = dnnl::memory::format_tag;

struct Conv2d::Primitives {
  memory::dims src, weights, bias, dst;
  tag weightsTag;
  dnnl::convolution_forward forward;
  dnnl::convolution_backward_data backwardData;
  dnnl::convolution_backward_weights backwardWeights;
};

Conv2d::Conv2d(DnnlContext& ctx, const Conv2dSpec& spec, Parameter& weight, Parameter* bias)
    : ctx_(ctx), spec_(spec), weight_(weight), bias_(bias) {}

Conv2d::Primitives& Conv2d::primitives(int64_t n, int64_t h, int64_t w) {
  auto& slot = cache_[{n, h, w}];
  if (slot) return *slot;
  auto p = std::make_shared<Primitives>();
  const int64_t g = spec_.groups, k = spec_.kernel;
  p->src = {n, spec_.in, h, w};
  // Grouped weights are [g, out/g, in/g, k, k]: the same memory as PyTorch's
  // [out, in/g, k, k].
  p->weights = g == 1 ? memory::dims{spec_.out, spec_.in, k, k} : memory::dims{g, spec_.out / g, spec_.in / g, k, k};
  p->weightsTag = g == 1 ? tag::oihw : tag::goihw;
  p->bias = {spec_.out};
  p->dst = {n, spec_.out, outSize(h), outSize(w)};
  const memory::dims strides = {spec_.stride, spec_.stride}, pad = {spec_.padding, spec_.padding};
  const auto f32 = memory::data_type::f32;
  const auto direct = dnnl::algorithm::convolution_direct;
  const memory::desc src(p->src, f32, tag::nchw), weights(p->weights, f32, p->weightsTag), bias(p->bias, f32, tag::x),
      dst(p->dst, f32, tag::nchw);
  using Forward = dnnl::convolution_forward;
  using BackwardWeights = dnnl::convolution_backward_weights;
  const auto training = dnnl::prop_kind::forward_training;
  Forward::primitive_desc forward =
      bias_ ? Forward::primitive_desc({training, direct, src, weights, bias, dst, strides, pad, pad}, ctx_.engine)
            : Forward::primitive_desc({training, direct, src, weights, dst, strides, pad, pad}, ctx_.engine);
  p->forward = Forward(forward);
  p->backwardData = dnnl::convolution_backward_data(dnnl::convolution_backward_data::primitive_desc(
      {direct, src, weights, dst, strides, pad, pad}, ctx_.engine, forward));
  p->backwardWeights = BackwardWeights(
      bias_ ? BackwardWeights::primitive_desc({direct, src, weights, bias, dst, strides, pad, pad}, ctx_.engine, forward)
            : BackwardWeights::primitive_desc({direct, src, weights, dst, strides, pad, pad}, ctx_.engine, forward));
  slot = p;
  return *slot;
}

void Conv2d::forward(const float* x, int64_t n, int64_t h, int64_t w, float* y) {
  Primitives& p = primitives(n, h, w);
  std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, view(ctx_, p.src, tag::nchw, x)},
                                          {DNNL_ARG_WEIGHTS, view(ctx_, p.weights, p.weightsTag, weight_.value())},
                                          {DNNL_ARG_DST, view(ctx_, p.dst, tag::nchw, y)}};
  if (bias_) args[DNNL_ARG_BIAS] = view(ctx_, p.bias, tag::x, bias_->value());
  p.forward.execute(ctx_.stream, args);
  ctx_.stream.wait();
}

void Conv2d::backward(const float* x, const float* dy, int64_t n, int64_t h, int64_t w, float* dx) {
  Primitives& p = primitives(n, h, w);
  std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, view(ctx_, p.src, tag::nchw, x)},
                                          {DNNL_ARG_DIFF_DST, view(ctx_, p.dst, tag::nchw, dy)},
                                          {DNNL_ARG_DIFF_WEIGHTS, view(ctx_, p.weights, p.weightsTag, weight_.grad())}};
  if (bias_) args[DNNL_ARG_DIFF_BIAS] = view(ctx_, p.bias, tag::x, bias_->grad());
  p.backwardWeights.execute(ctx_.stream, args);
  if (dx) {
    p.backwardData.execute(ctx_.stream, {{DNNL_ARG_DIFF_DST, view(ctx_, p.dst, tag::nchw, dy)},
                                         {DNNL_ARG_WEIGHTS, view(ctx_, p.weights, p.weightsTag, weight_.value())},
                                         {DNNL_ARG_DIFF_SRC, view(ctx_, p.src, tag::nchw, dx)}});
  }
  ctx_.stream.wait();
}

}  // namespace dtb::nn
