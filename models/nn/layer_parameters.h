// The parameters a layer registers, named and initialised as torchvision
// does, in one place for every device: the oneDNN and the CUDA modules call
// these, so a model has the same parameters, in the same order, with the
// same initial values wherever it computes.
#pragma once

#include <cstdint>
#include <string>

#include "layer_specs.h"
#include "parameter_registry.h"

namespace dtb::nn {

struct ConvParameters {
  uint32_t layer;
  Parameter& weight;
  Parameter* bias;  // null without a bias
};

struct AffineParameters {
  uint32_t layer;
  Parameter& weight;
  Parameter& bias;
};

// Weight [out, in / groups, k, k], kaiming-normal (fan_out, ReLU gain);
// bias [out] at 0 when asked for.
ConvParameters registerConv(ParameterRegistry& registry, const std::string& name, const Conv2dSpec& spec,
                            bool bias);
// Scale 1 and shift 0, neither weight-decayed.
AffineParameters registerBatchNorm(ParameterRegistry& registry, const std::string& name, int64_t channels);
// Weight [out, in] and bias [out], U(-1/sqrt(in), 1/sqrt(in)) (PyTorch's
// Linear default).
AffineParameters registerLinear(ParameterRegistry& registry, const std::string& name, int64_t in,
                                int64_t out);

}  // namespace dtb::nn
