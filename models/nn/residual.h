// y = main(x) + shortcut(x), then ReLU where asked: ResNet's basic block and
// bottleneck (shortcut: identity, or 1x1 convolution and batch norm when the
// shape changes; ReLU after the sum) and MobileNetV2's inverted residual
// (identity shortcut, no ReLU).
#pragma once

#include <memory>
#include <vector>

#include "module.h"

namespace dtb::nn {

class Residual : public Module {
 public:
  // A null `shortcut` is the identity.
  Residual(std::unique_ptr<Module> main, std::unique_ptr<Module> shortcut, bool reluAfter);

  Shape outputShape(const Shape& in) const override { return main_->outputShape(in); }
  const float* forward(const float* x, const Shape& in, const Pass& pass) override;
  const float* backward(const float* dy, const Pass& pass, bool inputGrad) override;

 private:
  std::unique_ptr<Module> main_, shortcut_;
  bool reluAfter_;
  uint64_t inCount_ = 0, outCount_ = 0;
  std::vector<float> y_, dsum_, dx_;
};

}  // namespace dtb::nn
