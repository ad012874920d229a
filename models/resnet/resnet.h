// ResNet-18/34/50/101/152 as torchvision defines them (He et al. 2016, v1.5
// bottlenecks), with two stems: "imagenet" (7x7 stride-2 convolution and 3x3
// stride-2 max pooling) and "cifar" (one 3x3 stride-1 convolution, no
// pooling: the variant CIFAR-10 studies train, keeping 32x32 inputs from
// shrinking to 1x1 by the last stage).
#pragma once

#include "dtbench/model.h"
#include "dtbench/settings.hpp"
#include "network.h"

namespace dtb::model::resnet {

// The plugin's own parameter (plugin.cpp declares it with Network's, the
// constructor reads it).
inline constexpr IntSetting kDepth{"depth", "18", "Number of weighted layers: 18, 34, 50, 101 or 152",
                                   between(18, 152)};

class ResNet : public nn::Network {
 public:
  ResNet(const dtb_host_t* host, const dtb_model_setup_t& setup);
};

}  // namespace dtb::model::resnet
