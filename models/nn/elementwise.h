// The cheap layers, written out: ReLU, ReLU6, dropout (inverted,
// as PyTorch: kept values scaled by 1 / (1 - p)) and channel dropout
// (Dropout2d), each with its backward pass.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace dtb::nn {

void reluForward(const float* x, float* y, uint64_t count);
// dx = dy where y > 0 (y is the forward output).
void reluBackward(const float* y, const float* dy, float* dx, uint64_t count);
// min(max(x, 0), 6) (MobileNetV2); the gradient passes where 0 < y < 6.
void relu6Forward(const float* x, float* y, uint64_t count);
void relu6Backward(const float* y, const float* dy, float* dx, uint64_t count);

// Dropout of probability p: mask[i] is 0 or 1 / (1 - p). `perChannel`
// drops whole channels of `channelSize` elements (Dropout2d).
void dropoutForward(const float* x, float* y, uint64_t count, double p, uint64_t channelSize,
                    std::mt19937_64& rng, std::vector<float>& mask);
void dropoutBackward(const float* dy, const std::vector<float>& mask, float* dx, uint64_t count);

}  // namespace dtb::nn
