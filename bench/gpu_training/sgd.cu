#include <cuda_runtime.h>

#include "sgd.h"

namespace dtb::bench {
namespace {

// torch.optim.SGD's update: g += wd w; b = m b + g; w -= lr b.
__global__ void sgdKernel(float* w, const float* g, float* b, uint64_t n, float lr, float momentum,
                          float decay) {
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += uint64_t{gridDim.x} * blockDim.x) {
    const float grad = g[i] + decay * w[i];
    b[i] = momentum * b[i] + grad;
    w[i] -= lr * b[i];
  }
}

}  // namespace

bool sgdStep(float* w, const float* g, float* b, uint64_t n, float lr, float momentum, float decay) {
  const unsigned blocks = static_cast<unsigned>(n / 256 + 1 < 4096 ? n / 256 + 1 : 4096);
  sgdKernel<<<blocks, 256>>>(w, g, b, n, lr, momentum, decay);
  return cudaGetLastError() == cudaSuccess;
}

}  // namespace dtb::bench
