// MobileNetV2 as torchvision defines it (Sandler et al. 2018): a 3x3
// stride-2 convolution to 32 channels, 17 inverted residual blocks
// (expansion t, channels c, repeats n, first stride s: 1-16-1-1, 6-24-2-2,
// 6-32-3-2, 6-64-4-2, 6-96-3-1, 6-160-3-2, 6-320-1-1), a 1x1 convolution to
// 1280 channels, global average pooling, dropout 0.2 and a linear classifier;
// ReLU6 throughout, channel counts scaled by `width` and rounded to multiples
// of 8. The "cifar" stem keeps stride 1 in the first convolution and in the
// 24-channel stage, so 32x32 inputs end at 4x4 rather than 1x1.
#pragma once

#include "dtbench/model.h"
#include "dtbench/settings.hpp"
#include "network.h"

namespace dtb::model::mobilenetv2 {

// The plugin's own parameter (plugin.cpp declares it with Network's, the
// constructor reads it).
inline constexpr FloatSetting kWidth{
    "width", "1.0", "Width multiplier: every layer's channels scaled by it, rounded to a multiple of 8",
    between(0.1, 4.0)};

class MobileNetV2 : public nn::Network {
 public:
  MobileNetV2(const dtb_host_t* host, const dtb_model_setup_t& setup);
};

}  // namespace dtb::model::mobilenetv2
