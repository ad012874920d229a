// Fully connected layer y = x W^T + b on oneDNN's inner product, with the
// backward passes for data and weights. W is [out, in] as in PyTorch.
#pragma once

#include <map>
#include <memory>

#include "dnnl_context.h"
#include "parameter.h"

namespace dtb::nn {

class LinearLayer {
 public:
  LinearLayer(DnnlContext& ctx, int64_t in, int64_t out, Parameter& weight, Parameter& bias);

  void forward(const float* x, int64_t n, float* y);
  // Writes the weight and bias gradients, and dx unless null.
  void backward(const float* x, const float* dy, int64_t n, float* dx);

 private:
  struct Primitives;
  Primitives& primitives(int64_t n);

  DnnlContext& ctx_;
  int64_t in_, out_;
  Parameter& weight_;
  Parameter& bias_;
  std::map<int64_t, std::shared_ptr<Primitives>> cache_;  // per batch size
};

}  // namespace dtb::nn
