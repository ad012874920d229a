#include "pooling.h"

#include <cstddef>

#include "pool_window.h"

namespace dtb::nn {

void maxPoolForward(const float* x, int64_t n, int64_t c, int64_t h, int64_t w, const PoolSpec& spec,
                    float* y, std::vector<uint32_t>& argmax) {
  const int64_t oh = spec.outSize(h), ow = spec.outSize(w);
  argmax.resize(static_cast<size_t>(n * c * oh * ow));
#pragma omp parallel for
  for (int64_t plane = 0; plane < n * c; ++plane) {
    const int64_t base = plane * h * w;
    int64_t out = plane * oh * ow;
    for (int64_t i = 0; i < oh; ++i) {
      for (int64_t j = 0; j < ow; ++j, ++out) {
        const WindowMax best = windowMax(x, base, h, w, i, j, spec);
        y[out] = best.value;
        argmax[out] = static_cast<uint32_t>(best.index);
      }
    }
  }
}

void maxPoolBackward(const float* dy, const std::vector<uint32_t>& argmax, float* dx, uint64_t inputCount) {
  for (uint64_t i = 0; i < inputCount; ++i) dx[i] = 0.0f;
  for (size_t o = 0; o < argmax.size(); ++o) dx[argmax[o]] += dy[o];
}

void globalAvgPoolForward(const float* x, int64_t planes, int64_t planeSize, float* y) {
#pragma omp parallel for
  for (int64_t p = 0; p < planes; ++p) {
    double sum = 0;
    for (int64_t i = 0; i < planeSize; ++i) sum += x[p * planeSize + i];
    y[p] = static_cast<float>(sum / static_cast<double>(planeSize));
  }
}

void globalAvgPoolBackward(const float* dy, int64_t planes, int64_t planeSize, float* dx) {
#pragma omp parallel for
  for (int64_t p = 0; p < planes; ++p) {
    const float share = dy[p] / static_cast<float>(planeSize);
    for (int64_t i = 0; i < planeSize; ++i) dx[p * planeSize + i] = share;
  }
}

}  // namespace dtb::nn
