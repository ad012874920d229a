#include "linear_layer.h"

namespace dtb::nn {

using dnnl::memory;
using tag = dnnl::memory::format_tag;

struct LinearLayer::Primitives {
  memory::dims src, weights, bias, dst;
  dnnl::inner_product_forward forward;
  dnnl::inner_product_backward_data backwardData;
  dnnl::inner_product_backward_weights backwardWeights;
};

LinearLayer::LinearLayer(DnnlContext& ctx, int64_t in, int64_t out, Parameter& weight, Parameter& bias)
    : ctx_(ctx), in_(in), out_(out), weight_(weight), bias_(bias) {}

LinearLayer::Primitives& LinearLayer::primitives(int64_t n) {
  auto& slot = cache_[n];
  if (slot) return *slot;
  auto p = std::make_shared<Primitives>();
  p->src = {n, in_};
  p->weights = {out_, in_};
  p->bias = {out_};
  p->dst = {n, out_};
  const auto f32 = memory::data_type::f32;
  const memory::desc src(p->src, f32, tag::nc), weights(p->weights, f32, tag::oi), bias(p->bias, f32, tag::x),
      dst(p->dst, f32, tag::nc);
  dnnl::inner_product_forward::primitive_desc forward(
      {dnnl::prop_kind::forward_training, src, weights, bias, dst}, ctx_.engine);
  p->forward = dnnl::inner_product_forward(forward);
  p->backwardData = dnnl::inner_product_backward_data(
      dnnl::inner_product_backward_data::primitive_desc({src, weights, dst}, ctx_.engine, forward));
  p->backwardWeights = dnnl::inner_product_backward_weights(
      dnnl::inner_product_backward_weights::primitive_desc({src, weights, bias, dst}, ctx_.engine, forward));
  slot = p;
  return *slot;
}

void LinearLayer::forward(const float* x, int64_t n, float* y) {
  Primitives& p = primitives(n);
  p.forward.execute(ctx_.stream, {{DNNL_ARG_SRC, view(ctx_, p.src, tag::nc, x)},
                                  {DNNL_ARG_WEIGHTS, view(ctx_, p.weights, tag::oi, weight_.value())},
                                  {DNNL_ARG_BIAS, view(ctx_, p.bias, tag::x, bias_.value())},
                                  {DNNL_ARG_DST, view(ctx_, p.dst, tag::nc, y)}});
  ctx_.stream.wait();
}

void LinearLayer::backward(const float* x, const float* dy, int64_t n, float* dx) {
  Primitives& p = primitives(n);
  p.backwardWeights.execute(ctx_.stream,
                            {{DNNL_ARG_SRC, view(ctx_, p.src, tag::nc, x)},
                             {DNNL_ARG_DIFF_DST, view(ctx_, p.dst, tag::nc, dy)},
                             {DNNL_ARG_DIFF_WEIGHTS, view(ctx_, p.weights, tag::oi, weight_.grad())},
                             {DNNL_ARG_DIFF_BIAS, view(ctx_, p.bias, tag::x, bias_.grad())}});
  if (dx) {
    p.backwardData.execute(ctx_.stream, {{DNNL_ARG_DIFF_DST, view(ctx_, p.dst, tag::nc, dy)},
                                         {DNNL_ARG_WEIGHTS, view(ctx_, p.weights, tag::oi, weight_.value())},
                                         {DNNL_ARG_DIFF_SRC, view(ctx_, p.src, tag::nc, dx)}});
  }
  ctx_.stream.wait();
}

}  // namespace dtb::nn
