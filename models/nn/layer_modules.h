// The oneDNN layers as Modules (what CpuLayers makes), over parameters
// registered as torchvision registers them (layer_parameters.h).
#pragma once

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "batch_norm.h"
#include "conv2d.h"
#include "layer_parameters.h"
#include "linear_layer.h"
#include "module.h"
#include "parameter_registry.h"
#include "pooling.h"

namespace dtb::nn {

class ConvModule : public Module {
 public:
  ConvModule(DnnlContext& ctx, const Conv2dSpec& spec, const ConvParameters& params);
  Shape outputShape(const Shape& in) const override;
  const float* forward(const float* x, const Shape& in, const Pass& pass) override;
  const float* backward(const float* dy, const Pass& pass, bool inputGrad) override;

 private:
  uint32_t layer_;
  Parameter& weight_;
  Parameter* bias_ = nullptr;
  std::unique_ptr<Conv2d> conv_;
  const float* x_ = nullptr;
  Shape in_;
  std::vector<float> y_, dx_;
};

class BatchNormModule : public Module {
 public:
  BatchNormModule(const AffineParameters& params, int64_t channels);
  Shape outputShape(const Shape& in) const override { return in; }
  const float* forward(const float* x, const Shape& in, const Pass& pass) override;
  const float* backward(const float* dy, const Pass& pass, bool inputGrad) override;

 private:
  uint32_t layer_;
  Parameter& weight_;
  Parameter& bias_;
  BatchNorm2d norm_;
  const float* x_ = nullptr;
  uint64_t count_ = 0;
  std::vector<float> y_, dx_;
};

// ReLU, or ReLU6 (clipped at 6) for MobileNetV2.
class ReluModule : public Module {
 public:
  explicit ReluModule(bool clipAtSix = false) : clip_(clipAtSix) {}
  Shape outputShape(const Shape& in) const override { return in; }
  const float* forward(const float* x, const Shape& in, const Pass& pass) override;
  const float* backward(const float* dy, const Pass& pass, bool inputGrad) override;

 private:
  bool clip_;
  uint64_t count_ = 0;
  std::vector<float> y_, dx_;
};

class MaxPoolModule : public Module {
 public:
  explicit MaxPoolModule(const PoolSpec& spec) : spec_(spec) {}
  Shape outputShape(const Shape& in) const override;
  const float* forward(const float* x, const Shape& in, const Pass& pass) override;
  const float* backward(const float* dy, const Pass& pass, bool inputGrad) override;

 private:
  PoolSpec spec_;
  Shape in_;
  std::vector<uint32_t> argmax_;
  std::vector<float> y_, dx_;
};

// [n, c, h, w] -> [n, c, 1, 1]: AdaptiveAvgPool2d(1).
class GlobalAvgPoolModule : public Module {
 public:
  // Too small an input (h or w below 1) stays too small: {n, c, 0, 0}.
  Shape outputShape(const Shape& in) const override {
    return in.h < 1 || in.w < 1 ? Shape{in.n, in.c, 0, 0} : Shape{in.n, in.c, 1, 1};
  }
  const float* forward(const float* x, const Shape& in, const Pass& pass) override;
  const float* backward(const float* dy, const Pass& pass, bool inputGrad) override;

 private:
  Shape in_;
  std::vector<float> y_, dx_;
};

// Fully connected over the flattened input: [n, c, h, w] -> [n, out, 1, 1].
class LinearModule : public Module {
 public:
  LinearModule(DnnlContext& ctx, const AffineParameters& params, int64_t in, int64_t out);
  Shape outputShape(const Shape& in) const override { return {in.n, out_, 1, 1}; }
  const float* forward(const float* x, const Shape& in, const Pass& pass) override;
  const float* backward(const float* dy, const Pass& pass, bool inputGrad) override;

 private:
  uint32_t layer_;
  int64_t out_;
  Parameter& weight_;
  Parameter& bias_;
  std::unique_ptr<LinearLayer> linear_;
  const float* x_ = nullptr;
  int64_t n_ = 0;
  std::vector<float> y_, dx_;
};

// Inverted dropout of probability p while training, per element or per
// channel; the identity otherwise. `draws` may be shared with other modules
// (layer_specs.h: one stream for one seed).
class DropoutModule : public Module {
 public:
  DropoutModule(const DropoutSpec& spec, std::shared_ptr<std::mt19937_64> draws)
      : p_(spec.p), perChannel_(spec.perChannel), draws_(std::move(draws)) {}
  Shape outputShape(const Shape& in) const override { return in; }
  const float* forward(const float* x, const Shape& in, const Pass& pass) override;
  const float* backward(const float* dy, const Pass& pass, bool inputGrad) override;

 private:
  double p_;
  bool perChannel_;
  std::shared_ptr<std::mt19937_64> draws_;
  std::vector<float> mask_, y_, dx_;
};

}  // namespace dtb::nn
