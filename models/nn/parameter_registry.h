// The parameters and layers of a model as its modules register them: names
// as PyTorch's named_parameters() gives them ("layer1.0.conv1.weight"),
// indices in registration order, and the C views the host sees.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "parameter.h"

namespace dtb::nn {

class ParameterRegistry {
 public:
  explicit ParameterRegistry(uint64_t seed) : seed_(seed) {}

  // A new layer (a module with parameters); returns its index.
  uint32_t addLayer(const std::string& name);
  // A parameter of the layer added last.
  Parameter& add(const std::string& name, std::vector<int64_t> shape);
  // A seed for parameter initialisation, distinct per parameter.
  uint64_t seedFor(Parameter& p) const { return seed_ * 1000003 + p.view()->index; }

  Parameter& param(uint32_t index) { return *params_.at(index); }
  void releaseParam(uint32_t index, dtb_param_part_t part) { nn::releaseParam(params_, index, part); }
  dtb_param_t* const* views() const { return views_.data(); }
  uint32_t paramCount() const { return static_cast<uint32_t>(views_.size()); }
  const char* const* layerNames() const { return layerNames_.data(); }
  uint32_t layerCount() const { return static_cast<uint32_t>(layerNames_.size()); }

 private:
  uint64_t seed_;
  std::vector<std::unique_ptr<Parameter>> params_;
  std::vector<dtb_param_t*> views_;
  std::vector<std::unique_ptr<std::string>> layerNameStorage_;
  std::vector<const char*> layerNames_;
};

}  // namespace dtb::nn
