// The shapes of the layers with a window, shared by every device's layers:
// convolutions (square kernel, stride, zero padding, groups) and pooling;
// and what a dropout draws.
#pragma once

#include <cstdint>

namespace dtb::nn {

struct Conv2dSpec {
  int64_t in = 0, out = 0, kernel = 1;
  int64_t stride = 1, padding = 0;
  int64_t groups = 1;  // groups == in == out: depthwise

  int64_t outSize(int64_t size) const { return (size + 2 * padding - kernel) / stride + 1; }
};

struct PoolSpec {
  int64_t kernel = 2, stride = 2, padding = 0;

  int64_t outSize(int64_t size) const { return (size + 2 * padding - kernel) / stride + 1; }
};

// Inverted dropout of probability p while training. Each element is dropped
// on its own, or with `perChannel` each channel of a sample as a whole
// (Dropout2d). Modules made with the same seed draw from one stream, in the
// order they run, as PyTorch's dropouts all draw from one generator.
struct DropoutSpec {
  double p = 0.5;
  uint64_t seed = 0;
  bool perChannel = false;
};

}  // namespace dtb::nn
