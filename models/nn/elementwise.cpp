#include "elementwise.h"

namespace dtb::nn {

// Element loops run on the rank's OpenMP threads once they are long enough
// to pay for waking them.
constexpr uint64_t kParallelFrom = 1 << 15;

void reluForward(const float* x, float* y, uint64_t count) {
#pragma omp parallel for if (count >= kParallelFrom)
  for (uint64_t i = 0; i < count; ++i) y[i] = x[i] > 0 ? x[i] : 0.0f;
}

void reluBackward(const float* y, const float* dy, float* dx, uint64_t count) {
#pragma omp parallel for if (count >= kParallelFrom)
  for (uint64_t i = 0; i < count; ++i) dx[i] = y[i] > 0 ? dy[i] : 0.0f;
}

void relu6Forward(const float* x, float* y, uint64_t count) {
#pragma omp parallel for if (count >= kParallelFrom)
  for (uint64_t i = 0; i < count; ++i) y[i] = x[i] > 0 ? (x[i] < 6 ? x[i] : 6.0f) : 0.0f;
}

void relu6Backward(const float* y, const float* dy, float* dx, uint64_t count) {
#pragma omp parallel for if (count >= kParallelFrom)
  for (uint64_t i = 0; i < count; ++i) dx[i] = y[i] > 0 && y[i] < 6 ? dy[i] : 0.0f;
}

void dropoutForward(const float* x, float* y, uint64_t count, double p, uint64_t channelSize,
                    std::mt19937_64& rng, std::vector<float>& mask) {
  mask.resize(count);
  if (p <= 0) {
    for (uint64_t i = 0; i < count; ++i) {
      mask[i] = 1.0f;
      y[i] = x[i];
    }
    return;
  }
  std::bernoulli_distribution keep(1.0 - p);
  const float scale = static_cast<float>(1.0 / (1.0 - p));
  for (uint64_t start = 0; start < count; start += channelSize) {
    for (uint64_t i = start; i < start + channelSize && i < count; ++i) {
      if (i == start || channelSize == 1)
        mask[i] = keep(rng) ? scale : 0.0f;
      else
        mask[i] = mask[start];
      y[i] = x[i] * mask[i];
    }
  }
}

void dropoutBackward(const float* dy, const std::vector<float>& mask, float* dx, uint64_t count) {
  for (uint64_t i = 0; i < count; ++i) dx[i] = dy[i] * mask[i];
}

}  // namespace dtb::nn
