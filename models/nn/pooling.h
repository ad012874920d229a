// Pooling over [n, c, h, w]: max pooling with kernel, stride and padding
// (padding never wins, as PyTorch pads with -inf), and global average
// pooling to [n, c, 1, 1] (AdaptiveAvgPool2d(1)), each with its backward.
#pragma once

#include <cstdint>
#include <vector>

#include "layer_specs.h"

namespace dtb::nn {

// `argmax` records the winning input index of each output.
void maxPoolForward(const float* x, int64_t n, int64_t c, int64_t h, int64_t w, const PoolSpec& spec,
                    float* y, std::vector<uint32_t>& argmax);
void maxPoolBackward(const float* dy, const std::vector<uint32_t>& argmax, float* dx, uint64_t inputCount);

void globalAvgPoolForward(const float* x, int64_t planes, int64_t planeSize, float* y);
void globalAvgPoolBackward(const float* dy, int64_t planes, int64_t planeSize, float* dx);

}  // namespace dtb::nn
