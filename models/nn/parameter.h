// A trainable tensor of a model: its values, its gradient, and the
// dtb_param_t view the host and strategies see. Layers read value()/grad()
// through the view's pointers at every use: a strategy may re-point them
// (ZeRO-3 gathers, DDP's gradient_as_bucket_view).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dtbench/model.h"

namespace dtb::nn {

class Parameter {
 public:
  Parameter(std::string name, std::vector<int64_t> shape, uint32_t index, uint32_t layer);
  Parameter(const Parameter&) = delete;
  Parameter& operator=(const Parameter&) = delete;

  dtb_param_t* view() { return &view_; }
  float* value() const { return static_cast<float*>(view_.value.data); }
  float* grad() const { return static_cast<float*>(view_.grad.data); }
  uint64_t count() const { return view_.value.count; }
  const std::vector<int64_t>& shape() const { return shape_; }

  // U(-bound, bound), the default initialisation of PyTorch's Linear and Conv2d
  // (kaiming_uniform with a = sqrt(5) gives bound = 1 / sqrt(fan_in)).
  void initUniform(double bound, uint64_t seed);
  // N(0, std^2): kaiming_normal_ with std = sqrt(2 / fan) in torchvision's
  // ResNet and MobileNetV2.
  void initNormal(double std, uint64_t seed);
  void fill(float value);

  // Moves the parameter to memory elsewhere (a GPU): the view points at
  // `value` and `grad` on `device`, which this parameter owns from now on;
  // its host storage is freed. Initialise before, on the host.
  void adopt(dtb_device_t device, std::shared_ptr<void> value, std::shared_ptr<void> grad);

  // Frees this parameter's own storage of `part` for good, for a strategy
  // that keeps it elsewhere (dtb_model_plugin_v1_t::release_param); the view
  // is set to NULL if it still pointed there.
  void release(dtb_param_part_t part);

 private:
  std::string name_;
  std::vector<int64_t> shape_;
  std::vector<float> value_, grad_;
  std::shared_ptr<void> adopted_[2];  // value, grad: storage elsewhere, after adopt()
  dtb_param_t view_{};
};

// What a model's releaseParam does over the parameters it holds: the
// index checked, then Parameter::release.
void releaseParam(const std::vector<std::unique_ptr<Parameter>>& params, uint32_t index,
                  dtb_param_part_t part);

}  // namespace dtb::nn
