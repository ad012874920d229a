// Max pooling's one window, as the CPU layer (pooling.cpp) and the GPU
// kernel (cuda/pooling_kernels.cu) both compute it, so the two cannot
// drift: the first maximum wins, as in PyTorch, and padding is skipped.
#pragma once

#include <cmath>
#include <cstdint>

#include "layer_specs.h"

#ifdef __CUDACC__
#define DTB_HOST_DEVICE __host__ __device__
#else
#define DTB_HOST_DEVICE
#endif

namespace dtb::nn {

struct WindowMax {
  float value;
  int64_t index;  // into x; -1 when the window holds only padding
};

// The maximum of output (i, j)'s window over the plane at x[base], h x w.
DTB_HOST_DEVICE inline WindowMax windowMax(const float* x, int64_t base, int64_t h, int64_t w, int64_t i,
                                           int64_t j, const PoolSpec& spec) {
  WindowMax best{-INFINITY, -1};
  for (int64_t di = 0; di < spec.kernel; ++di) {
    const int64_t row = i * spec.stride - spec.padding + di;
    if (row < 0 || row >= h) continue;
    for (int64_t dj = 0; dj < spec.kernel; ++dj) {
      const int64_t col = j * spec.stride - spec.padding + dj;
      if (col < 0 || col >= w) continue;
      const int64_t index = base + row * w + col;
      if (best.index < 0 || x[index] > best.value) best = {x[index], index};
    }
  }
  return best;
}

}  // namespace dtb::nn
