#include "elementwise.h"

#include <limits>

namespace dtb::nn {

void reluForward(const float* x, float* y, uint64_t count) {
  for (uint64_t i = 0; i < count; ++i) y[i] = x[i] > 0 ? x[i] : 0.0f;
}

void reluBackward(const float* y, const float* dy, float* dx, uint64_t count) {
  for (uint64_t i = 0; i < count; ++i) dx[i] = y[i] > 0 ? dy[i] : 0.0f;
}

void maxPoolForward(const float* x, int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, float* y,
                    std::vector<uint32_t>& argmax) {
  const int64_t oh = h / k, ow = w / k;
  argmax.resize(static_cast<size_t>(n * c * oh * ow));
  size_t out = 0;
  for (int64_t plane = 0; plane < n * c; ++plane) {
    const int64_t base = plane * h * w;
    for (int64_t i = 0; i < oh; ++i) {
      for (int64_t j = 0; j < ow; ++j, ++out) {
        float best = -std::numeric_limits<float>::infinity();
        int64_t where = base + i * k * w + j * k;
        for (int64_t di = 0; di < k; ++di) {
          for (int64_t dj = 0; dj < k; ++dj) {
            const int64_t index = base + (i * k + di) * w + j * k + dj;
            if (x[index] > best) {  // first maximum wins, as PyTorch
              best = x[index];
              where = index;
            }
          }
        }
        y[out] = best;
        argmax[out] = static_cast<uint32_t>(where);
      }
    }
  }
}

void maxPoolBackward(const float* dy, const std::vector<uint32_t>& argmax, float* dx, uint64_t inputCount) {
  for (uint64_t i = 0; i < inputCount; ++i) dx[i] = 0.0f;
  for (size_t o = 0; o < argmax.size(); ++o) dx[argmax[o]] += dy[o];
}

void dropoutForward(const float* x, float* y, uint64_t count, double p, uint64_t channelSize, std::mt19937_64& rng,
                    std::vector<float>& mask) {
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
      if (i == start || channelSize == 1) mask[i] = keep(rng) ? scale : 0.0f;
      else mask[i] = mask[start];
      y[i] = x[i] * mask[i];
    }
  }
}

void dropoutBackward(const float* dy, const std::vector<float>& mask, float* dx, uint64_t count) {
  for (uint64_t i = 0; i < count; ++i) dx[i] = dy[i] * mask[i];
}

}  // namespace dtb::nn
