// The cheap layers, written out: ReLU, 2x2 max pooling, dropout (inverted,
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

// Max pooling, kernel k, stride k, no padding, over [n, c, h, w]; `argmax`
// records the winning input index of each output.
void maxPoolForward(const float* x, int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, float* y,
                    std::vector<uint32_t>& argmax);
void maxPoolBackward(const float* dy, const std::vector<uint32_t>& argmax, float* dx, uint64_t inputCount);

// Dropout of probability p: mask[i] is 0 or 1 / (1 - p). `perChannel`
// drops whole channels of `channelSize` elements (Dropout2d).
void dropoutForward(const float* x, float* y, uint64_t count, double p, uint64_t channelSize, std::mt19937_64& rng,
                    std::vector<float>& mask);
void dropoutBackward(const float* dy, const std::vector<float>& mask, float* dx, uint64_t count);

}  // namespace dtb::nn
