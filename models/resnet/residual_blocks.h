// ResNet's two residual blocks as torchvision builds them (ResNet v1.5: a
// bottleneck strides in its 3x3 convolution), parameters named as
// torchvision names them under `name` ("layer1.0").
#pragma once

#include <memory>
#include <string>

#include "layers.h"

namespace dtb::model::resnet {

// relu(bn2(conv2(relu(bn1(conv1(x))))) + shortcut(x)); 3x3 convolutions,
// `planes` output channels; the shortcut is a strided 1x1 convolution and
// batch norm ("downsample.0", ".1") when stride or channels change.
std::unique_ptr<nn::Module> basicBlock(nn::Layers& layers, nn::ParameterRegistry& registry,
                                       const std::string& name, int64_t in, int64_t planes, int64_t stride);

// 1x1 to `planes`, 3x3 (strided), 1x1 to 4 x planes, each with batch norm,
// ReLU between and after the sum; the same shortcut rule.
std::unique_ptr<nn::Module> bottleneck(nn::Layers& layers, nn::ParameterRegistry& registry,
                                       const std::string& name, int64_t in, int64_t planes, int64_t stride);

}  // namespace dtb::model::resnet
