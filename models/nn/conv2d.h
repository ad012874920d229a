// 2-D convolution (stride 1, padding p, square kernel, bias) on oneDNN, with
// the backward passes for data and weights. Layout NCHW, weights OIHW.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "dnnl_context.h"
#include "parameter.h"

namespace dtb::nn {

class Conv2d {
 public:
  Conv2d(DnnlContext& ctx, int64_t in, int64_t out, int64_t kernel, int64_t padding, Parameter& weight,
         Parameter& bias);

  // x: [n, in, h, w] -> y: [n, out, h', w'] with h' = h + 2p - k + 1.
  void forward(const float* x, int64_t n, int64_t h, int64_t w, float* y);
  // From dy: the weight and bias gradients (written), and dx unless null.
  void backward(const float* x, const float* dy, int64_t n, int64_t h, int64_t w, float* dx);

  int64_t outSize(int64_t size) const { return size + 2 * padding_ - kernel_ + 1; }

 private:
  struct Primitives;
  Primitives& primitives(int64_t n, int64_t h, int64_t w);

  DnnlContext& ctx_;
  int64_t in_, out_, kernel_, padding_;
  Parameter& weight_;
  Parameter& bias_;
  std::map<std::vector<int64_t>, std::shared_ptr<Primitives>> cache_;  // per input shape
};

}  // namespace dtb::nn
