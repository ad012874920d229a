// The building block of the layer library's models (ResNet, MobileNetV2,
// LeNet, MLP): a Module maps an activation to an activation and
// back-propagates through itself. Modules own their outputs and input gradients, and keep a pointer
// to their input (the previous module's output) for the backward pass, so an
// input must stay unchanged from forward until backward returns.
#pragma once

#include <cstdint>

#include "dtbench/model.h"
#include "dtbench/plugin.hpp"
#include "parameter.h"

namespace dtb::nn {

struct Shape {
  int64_t n = 0, c = 0, h = 1, w = 1;
  uint64_t count() const { return static_cast<uint64_t>(n * c * h * w); }
};

// The host's hooks for one forward or backward call (null: none), and
// whether the model is training (batch statistics, dropout on).
class Pass {
 public:
  Pass(const dtb_step_hooks_t* hooks, bool training) : hooks_(hooks), training_(training) {}

  bool training() const { return training_; }
  // Whether anyone listens for gradients (a GPU layer then lets its work
  // finish before saying a gradient is ready).
  bool watchesGradients() const { return hooks_ && hooks_->grad_ready; }
  // Whether anyone listens for layers beginning (a GPU layer then lets the
  // work queued before finish first).
  bool announcesLayers() const { return hooks_ && hooks_->layer_begin; }
  // Before layer `layer` computes (ZeRO-3 gathers its parameters here).
  void begin(uint32_t layer, dtb_pass_t pass) const {
    if (hooks_ && hooks_->layer_begin) check(hooks_->layer_begin(hooks_->user, layer, pass), "layer_begin");
  }
  // As soon as a parameter's gradient is final.
  void ready(Parameter& p) const {
    if (hooks_ && hooks_->grad_ready) check(hooks_->grad_ready(hooks_->user, p.view()), "grad_ready");
  }

 private:
  const dtb_step_hooks_t* hooks_;
  bool training_;
};

class Module {
 public:
  virtual ~Module() = default;

  virtual Shape outputShape(const Shape& in) const = 0;
  // y = f(x), held by the module until its next forward.
  virtual const float* forward(const float* x, const Shape& in, const Pass& pass) = 0;
  // From dL/dy of the last forward: writes the parameters' gradients (calling
  // pass.ready for each) and returns dL/dx, held by the module; returns null
  // without computing it when `inputGrad` is false.
  virtual const float* backward(const float* dy, const Pass& pass, bool inputGrad) = 0;
};

}  // namespace dtb::nn
