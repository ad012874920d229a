#include "pooling.h"

#include <cstddef>

#include "pool_window.h"

namespace dtb::nn {
namespace {

// 2x2 windows at stride 2 without padding (LeNet's, VGG's): the window's
// four elements in windowMax's order (row by row), each kept only if
// strictly larger, as selects the vectoriser turns into blends. windowMax's
// loops with a data-dependent branch per element took 2.5 ms for LeNet's
// first pooling at batch 128 (most of its forward pass); this takes ~0.1 ms.
void maxPool2x2(const float* x, int64_t planes, int64_t h, int64_t w, float* y, uint32_t* argmax) {
  const int64_t oh = h / 2, ow = w / 2;
#pragma omp parallel for
  for (int64_t plane = 0; plane < planes; ++plane) {
    for (int64_t i = 0; i < oh; ++i) {
      const int64_t top = plane * h * w + 2 * i * w;  // the window row's first element
      const float* upper = x + top;
      const float* lower = upper + w;
      float* out = y + (plane * oh + i) * ow;
      uint32_t* at = argmax + (plane * oh + i) * ow;
      for (int64_t j = 0; j < ow; ++j) {
        float best = upper[2 * j];
        uint32_t index = static_cast<uint32_t>(top + 2 * j);
        const float candidates[3] = {upper[2 * j + 1], lower[2 * j], lower[2 * j + 1]};
        const uint32_t offsets[3] = {1, static_cast<uint32_t>(w), static_cast<uint32_t>(w + 1)};
        for (int k = 0; k < 3; ++k) {
          const bool larger = candidates[k] > best;
          best = larger ? candidates[k] : best;
          index = larger ? static_cast<uint32_t>(top + 2 * j) + offsets[k] : index;
        }
        out[j] = best;
        at[j] = index;
      }
    }
  }
}

}  // namespace

void maxPoolForward(const float* x, int64_t n, int64_t c, int64_t h, int64_t w, const PoolSpec& spec,
                    float* y, std::vector<uint32_t>& argmax) {
  const int64_t oh = spec.outSize(h), ow = spec.outSize(w);
  argmax.resize(static_cast<size_t>(n * c * oh * ow));
  if (spec.kernel == 2 && spec.stride == 2 && spec.padding == 0) {
    maxPool2x2(x, n * c, h, w, y, argmax.data());
    return;
  }
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
