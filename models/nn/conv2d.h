// 2-D convolution on oneDNN (square kernel, stride, zero padding, groups,
// optional bias), with the backward passes for data and weights. Layout
// NCHW; weights [out, in / groups, k, k] as in PyTorch.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "dnnl_context.h"
#include "layer_specs.h"
#include "parameter.h"

namespace dtb::nn {

class Conv2d {
 public:
  // `bias` may be null (convolutions followed by batch norm have none).
  Conv2d(DnnlContext& ctx, const Conv2dSpec& spec, Parameter& weight, Parameter* bias);
  // Stride 1, one group, with bias (LeNet's convolutions).
  Conv2d(DnnlContext& ctx, int64_t in, int64_t out, int64_t kernel, int64_t padding, Parameter& weight,
         Parameter& bias)
      : Conv2d(ctx, {in, out, kernel, 1, padding, 1}, weight, &bias) {}

  // x: [n, in, h, w] -> y: [n, out, outSize(h), outSize(w)].
  void forward(const float* x, int64_t n, int64_t h, int64_t w, float* y);
  // From dy: the weight and bias gradients (written), and dx unless null.
  void backward(const float* x, const float* dy, int64_t n, int64_t h, int64_t w, float* dx);

  int64_t outSize(int64_t size) const { return spec_.outSize(size); }
  const Conv2dSpec& spec() const { return spec_; }

 private:
  struct Primitives;
  Primitives& primitives(int64_t n, int64_t h, int64_t w);

  DnnlContext& ctx_;
  Conv2dSpec spec_;
  Parameter& weight_;
  Parameter* bias_;
  std::map<std::vector<int64_t>, std::shared_ptr<Primitives>> cache_;  // per input shape
};

}  // namespace dtb::nn
