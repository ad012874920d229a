#include "conv2d.h"

namespace dtb::nn {

using dnnl::memory;
using tag = dnnl::memory::format_tag;

struct Conv2d::Primitives {
  memory::dims src, weights, bias, dst;
  dnnl::convolution_forward forward;
  dnnl::convolution_backward_data backwardData;
  dnnl::convolution_backward_weights backwardWeights;
};

Conv2d::Conv2d(DnnlContext& ctx, int64_t in, int64_t out, int64_t kernel, int64_t padding, Parameter& weight,
               Parameter& bias)
    : ctx_(ctx), in_(in), out_(out), kernel_(kernel), padding_(padding), weight_(weight), bias_(bias) {}

Conv2d::Primitives& Conv2d::primitives(int64_t n, int64_t h, int64_t w) {
  auto& slot = cache_[{n, h, w}];
  if (slot) return *slot;
  auto p = std::make_shared<Primitives>();
  p->src = {n, in_, h, w};
  p->weights = {out_, in_, kernel_, kernel_};
  p->bias = {out_};
  p->dst = {n, out_, outSize(h), outSize(w)};
  const memory::dims strides = {1, 1}, pad = {padding_, padding_};
  const auto f32 = memory::data_type::f32;
  const memory::desc src(p->src, f32, tag::nchw), weights(p->weights, f32, tag::oihw), bias(p->bias, f32, tag::x),
      dst(p->dst, f32, tag::nchw);
  dnnl::convolution_forward::primitive_desc forward(
      {dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct, src, weights, bias, dst, strides, pad, pad},
      ctx_.engine);
  p->forward = dnnl::convolution_forward(forward);
  p->backwardData = dnnl::convolution_backward_data(dnnl::convolution_backward_data::primitive_desc(
      {dnnl::algorithm::convolution_direct, src, weights, dst, strides, pad, pad}, ctx_.engine, forward));
  p->backwardWeights = dnnl::convolution_backward_weights(dnnl::convolution_backward_weights::primitive_desc(
      {dnnl::algorithm::convolution_direct, src, weights, bias, dst, strides, pad, pad}, ctx_.engine, forward));
  slot = p;
  return *slot;
}

void Conv2d::forward(const float* x, int64_t n, int64_t h, int64_t w, float* y) {
  Primitives& p = primitives(n, h, w);
  p.forward.execute(ctx_.stream, {{DNNL_ARG_SRC, view(ctx_, p.src, tag::nchw, x)},
                                  {DNNL_ARG_WEIGHTS, view(ctx_, p.weights, tag::oihw, weight_.value())},
                                  {DNNL_ARG_BIAS, view(ctx_, p.bias, tag::x, bias_.value())},
                                  {DNNL_ARG_DST, view(ctx_, p.dst, tag::nchw, y)}});
  ctx_.stream.wait();
}

void Conv2d::backward(const float* x, const float* dy, int64_t n, int64_t h, int64_t w, float* dx) {
  Primitives& p = primitives(n, h, w);
  p.backwardWeights.execute(ctx_.stream, {{DNNL_ARG_SRC, view(ctx_, p.src, tag::nchw, x)},
                                          {DNNL_ARG_DIFF_DST, view(ctx_, p.dst, tag::nchw, dy)},
                                          {DNNL_ARG_DIFF_WEIGHTS, view(ctx_, p.weights, tag::oihw, weight_.grad())},
                                          {DNNL_ARG_DIFF_BIAS, view(ctx_, p.bias, tag::x, bias_.grad())}});
  if (dx) {
    p.backwardData.execute(ctx_.stream, {{DNNL_ARG_DIFF_DST, view(ctx_, p.dst, tag::nchw, dy)},
                                         {DNNL_ARG_WEIGHTS, view(ctx_, p.weights, tag::oihw, weight_.value())},
                                         {DNNL_ARG_DIFF_SRC, view(ctx_, p.src, tag::nchw, dx)}});
  }
  ctx_.stream.wait();
}

}  // namespace dtb::nn
