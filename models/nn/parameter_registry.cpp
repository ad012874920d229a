#include "parameter_registry.h"

namespace dtb::nn {

uint32_t ParameterRegistry::addLayer(const std::string& name) {
  layerNameStorage_.push_back(std::make_unique<std::string>(name));
  layerNames_.push_back(layerNameStorage_.back()->c_str());
  return layerCount() - 1;
}

Parameter& ParameterRegistry::add(const std::string& name, std::vector<int64_t> shape) {
  params_.push_back(std::make_unique<Parameter>(name, std::move(shape), paramCount(), layerCount() - 1));
  views_.push_back(params_.back()->view());
  return *params_.back();
}

}  // namespace dtb::nn
