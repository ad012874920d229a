#include "layer_parameters.h"

#include <cmath>

namespace dtb::nn {

ConvParameters registerConv(ParameterRegistry& registry, const std::string& name, const Conv2dSpec& spec,
                            bool bias) {
  const uint32_t layer = registry.addLayer(name);
  Parameter& weight =
      registry.add(name + ".weight", {spec.out, spec.in / spec.groups, spec.kernel, spec.kernel});
  Parameter* b = bias ? &registry.add(name + ".bias", {spec.out}) : nullptr;
  // kaiming_normal_(mode="fan_out", nonlinearity="relu"): fan_out = out k k.
  weight.initNormal(std::sqrt(2.0 / static_cast<double>(spec.out * spec.kernel * spec.kernel)),
                    registry.seedFor(weight));
  if (b) {
    b->fill(0.0f);
    b->view()->flags = DTB_PARAM_FLAG_NO_WEIGHT_DECAY;
  }
  return {layer, weight, b};
}

AffineParameters registerBatchNorm(ParameterRegistry& registry, const std::string& name, int64_t channels) {
  const uint32_t layer = registry.addLayer(name);
  Parameter& weight = registry.add(name + ".weight", {channels});
  Parameter& bias = registry.add(name + ".bias", {channels});
  weight.fill(1.0f);
  bias.fill(0.0f);
  weight.view()->flags = bias.view()->flags = DTB_PARAM_FLAG_NO_WEIGHT_DECAY;
  return {layer, weight, bias};
}

AffineParameters registerLinear(ParameterRegistry& registry, const std::string& name, int64_t in,
                                int64_t out) {
  const uint32_t layer = registry.addLayer(name);
  Parameter& weight = registry.add(name + ".weight", {out, in});
  Parameter& bias = registry.add(name + ".bias", {out});
  const double bound = 1.0 / std::sqrt(static_cast<double>(in));
  weight.initUniform(bound, registry.seedFor(weight));
  bias.initUniform(bound, registry.seedFor(bias));
  bias.view()->flags = DTB_PARAM_FLAG_NO_WEIGHT_DECAY;
  return {layer, weight, bias};
}

}  // namespace dtb::nn
