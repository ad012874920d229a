#include "conv2d.h"

namespace dtb::nn {

using dnnl::memory;
using tag = dnnl::memory::format_tag;

// The three primitives for one input shape. Their tensors are declared with
// format "any" so oneDNN picks its fastest layout (blocked, nChw16c on AVX-512,
// where its JIT kernels run several times faster than the plain-layout GEMM
// path); our NCHW/OIHW buffers are reordered in and out, as PyTorch's
// oneDNN path does. The reordered copies live here, allocated once.
//
// A tensor copied into another layout, and the reorder that copies it; both
// made once. In a named namespace, not an anonymous one: Primitives, which
// has external linkage, holds them.
namespace conv2d_detail {
struct Staged {
  memory copy;
  dnnl::reorder reorder;
};
}  // namespace conv2d_detail
using conv2d_detail::Staged;

struct Conv2d::Primitives {
  memory::desc src, weights, bias, dst;  // ours, plain
  dnnl::convolution_forward::primitive_desc forwardPd;
  dnnl::convolution_backward_data::primitive_desc backwardDataPd;
  dnnl::convolution_backward_weights::primitive_desc backwardWeightsPd;
  dnnl::convolution_forward forward;
  dnnl::convolution_backward_data backwardData;
  dnnl::convolution_backward_weights backwardWeights;
  std::map<int, Staged> staging;  // by a role key below
  // What the last forward read, in oneDNN's layouts: the backward passes
  // reuse them rather than reorder the same tensors again.
  memory forwardSrc, forwardWeights;
};

namespace {

enum Role {
  kSrc,
  kWeights,
  kDst,
  kDiffDst,
  kDiffDstForData,
  kDiffSrc,
  kDiffWeights,
  kBackwardWeights,
  kBackwardSrc
};

// `ours` in the layout `wanted`: itself when the layouts agree, else a copy
// in staging memory kept for the next call.
memory input(DnnlContext& ctx, std::map<int, Staged>& staging, int role, const memory& ours,
             const memory::desc& wanted) {
  if (ours.get_desc() == wanted) return ours;
  Staged& slot = staging[role];
  if (!slot.copy) {
    slot.copy = memory(wanted, ctx.engine);
    slot.reorder = dnnl::reorder(ours, slot.copy);
  }
  slot.reorder.execute(ctx.stream, const_cast<memory&>(ours), slot.copy);
  return slot.copy;
}

// Where a primitive writes a result we want in `ours`: ours itself when the
// layouts agree, else staging memory to reorder back with `output()`.
memory target(DnnlContext& ctx, std::map<int, Staged>& staging, int role, const memory& ours,
              const memory::desc& wanted) {
  if (ours.get_desc() == wanted) return ours;
  Staged& slot = staging[role];
  if (!slot.copy) {
    slot.copy = memory(wanted, ctx.engine);
    slot.reorder = dnnl::reorder(slot.copy, ours);
  }
  return slot.copy;
}

// After target(): the result copied back into ours, where it was staged.
void output(DnnlContext& ctx, std::map<int, Staged>& staging, int role, memory& written, memory& ours) {
  if (written.get_data_handle() != ours.get_data_handle())
    staging[role].reorder.execute(ctx.stream, written, ours);
}

}  // namespace

Conv2d::Conv2d(DnnlContext& ctx, const Conv2dSpec& spec, Parameter& weight, Parameter* bias)
    : ctx_(ctx), spec_(spec), weight_(weight), bias_(bias) {}

Conv2d::Primitives& Conv2d::primitives(int64_t n, int64_t h, int64_t w) {
  auto& slot = cache_[{n, h, w}];
  if (slot) return *slot;
  auto p = std::make_shared<Primitives>();
  const int64_t g = spec_.groups, k = spec_.kernel;
  const auto f32 = memory::data_type::f32;
  // Grouped weights are [g, out/g, in/g, k, k]: the same memory as PyTorch's
  // [out, in/g, k, k].
  const memory::dims weights =
      g == 1 ? memory::dims{spec_.out, spec_.in, k, k} : memory::dims{g, spec_.out / g, spec_.in / g, k, k};
  const memory::dims src = {n, spec_.in, h, w}, dst = {n, spec_.out, outSize(h), outSize(w)};
  p->src = memory::desc(src, f32, tag::nchw);
  p->weights = memory::desc(weights, f32, g == 1 ? tag::oihw : tag::goihw);
  p->bias = memory::desc({spec_.out}, f32, tag::x);
  p->dst = memory::desc(dst, f32, tag::nchw);
  const memory::desc anySrc(src, f32, tag::any), anyWeights(weights, f32, tag::any),
      anyDst(dst, f32, tag::any);
  const memory::dims strides = {spec_.stride, spec_.stride}, pad = {spec_.padding, spec_.padding};
  const auto direct = dnnl::algorithm::convolution_direct;
  const auto training = dnnl::prop_kind::forward_training;
  using Forward = dnnl::convolution_forward;
  using BackwardWeights = dnnl::convolution_backward_weights;
  p->forwardPd =
      bias_ ? Forward::primitive_desc(
                  {training, direct, anySrc, anyWeights, p->bias, anyDst, strides, pad, pad}, ctx_.attr(),
                  ctx_.engine)
            : Forward::primitive_desc({training, direct, anySrc, anyWeights, anyDst, strides, pad, pad},
                                      ctx_.attr(), ctx_.engine);
  p->backwardDataPd = dnnl::convolution_backward_data::primitive_desc(
      {direct, anySrc, anyWeights, anyDst, strides, pad, pad}, ctx_.attr(), ctx_.engine, p->forwardPd);
  p->backwardWeightsPd =
      bias_
          ? BackwardWeights::primitive_desc({direct, anySrc, anyWeights, p->bias, anyDst, strides, pad, pad},
                                            ctx_.attr(), ctx_.engine, p->forwardPd)
          : BackwardWeights::primitive_desc({direct, anySrc, anyWeights, anyDst, strides, pad, pad},
                                            ctx_.attr(), ctx_.engine, p->forwardPd);
  p->forward = Forward(p->forwardPd);
  p->backwardData = dnnl::convolution_backward_data(p->backwardDataPd);
  p->backwardWeights = BackwardWeights(p->backwardWeightsPd);
  slot = p;
  return *slot;
}

void Conv2d::forward(const float* x, int64_t n, int64_t h, int64_t w, float* y) {
  Primitives& p = primitives(n, h, w);
  memory dst(p.dst, ctx_.engine, y);
  memory out = target(ctx_, p.staging, kDst, dst, p.forwardPd.dst_desc());
  p.forwardSrc =
      input(ctx_, p.staging, kSrc, memory(p.src, ctx_.engine, const_cast<float*>(x)), p.forwardPd.src_desc());
  p.forwardWeights = input(ctx_, p.staging, kWeights, memory(p.weights, ctx_.engine, weight_.value()),
                           p.forwardPd.weights_desc());
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, p.forwardSrc},
      {DNNL_ARG_WEIGHTS, p.forwardWeights},
      {DNNL_ARG_DST, out},
      {DNNL_ARG_SCRATCHPAD, ctx_.scratchpad(p.forwardPd.scratchpad_desc())}};
  if (bias_) args[DNNL_ARG_BIAS] = memory(p.bias, ctx_.engine, bias_->value());
  p.forward.execute(ctx_.stream, args);
  output(ctx_, p.staging, kDst, out, dst);
  ctx_.stream.wait();
}

void Conv2d::backward(const float* x, const float* dy, int64_t n, int64_t h, int64_t w, float* dx) {
  Primitives& p = primitives(n, h, w);
  const memory diffDst(p.dst, ctx_.engine, const_cast<float*>(dy));
  memory diffWeights(p.weights, ctx_.engine, weight_.grad());
  memory wroteWeights =
      target(ctx_, p.staging, kDiffWeights, diffWeights, p.backwardWeightsPd.diff_weights_desc());
  // x and the weights are what the forward read (the optimizer steps after
  // backward), so its reordered copies serve when the layouts agree.
  const memory src =
      p.forwardSrc && p.forwardSrc.get_desc() == p.backwardWeightsPd.src_desc()
          ? p.forwardSrc
          : input(ctx_, p.staging, kBackwardSrc, memory(p.src, ctx_.engine, const_cast<float*>(x)),
                  p.backwardWeightsPd.src_desc());
  const memory gradient = input(ctx_, p.staging, kDiffDst, diffDst, p.backwardWeightsPd.diff_dst_desc());
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, src},
      {DNNL_ARG_DIFF_DST, gradient},
      {DNNL_ARG_DIFF_WEIGHTS, wroteWeights},
      {DNNL_ARG_SCRATCHPAD, ctx_.scratchpad(p.backwardWeightsPd.scratchpad_desc())}};
  if (bias_) args[DNNL_ARG_DIFF_BIAS] = memory(p.bias, ctx_.engine, bias_->grad());
  p.backwardWeights.execute(ctx_.stream, args);
  output(ctx_, p.staging, kDiffWeights, wroteWeights, diffWeights);
  if (dx) {
    memory diffSrc(p.src, ctx_.engine, dx);
    memory wroteSrc = target(ctx_, p.staging, kDiffSrc, diffSrc, p.backwardDataPd.diff_src_desc());
    // diff_dst and the weights are reordered again only if backward-data
    // wants other layouts than those already made.
    const memory dataGradient =
        gradient.get_desc() == p.backwardDataPd.diff_dst_desc()
            ? gradient
            : input(ctx_, p.staging, kDiffDstForData, diffDst, p.backwardDataPd.diff_dst_desc());
    // A reordered copy made in forward still holds these weights; an
    // unreordered one only wraps forward's pointer, which a strategy may
    // have moved since (ZeRO-3 gathers the layer again for backward, maybe
    // into another buffer that forward's now holds another layer): wrap today's.
    const bool copied = p.forwardWeights && p.forwardWeights.get_desc() != p.weights;
    const memory weights =
        copied && p.forwardWeights.get_desc() == p.backwardDataPd.weights_desc()
            ? p.forwardWeights
            : input(ctx_, p.staging, kBackwardWeights, memory(p.weights, ctx_.engine, weight_.value()),
                    p.backwardDataPd.weights_desc());
    p.backwardData.execute(ctx_.stream,
                           {{DNNL_ARG_DIFF_DST, dataGradient},
                            {DNNL_ARG_WEIGHTS, weights},
                            {DNNL_ARG_DIFF_SRC, wroteSrc},
                            {DNNL_ARG_SCRATCHPAD, ctx_.scratchpad(p.backwardDataPd.scratchpad_desc())}});
    output(ctx_, p.staging, kDiffSrc, wroteSrc, diffSrc);
  }
  ctx_.stream.wait();
}

}  // namespace dtb::nn
