#include <algorithm>

#include "cuda_check.h"
#include "kernels.h"
#include "pool_window.h"

namespace dtb::nn::cuda {
namespace {

constexpr int kThreads = 256;

unsigned blocksFor(uint64_t count) {
  return static_cast<unsigned>(std::min<uint64_t>((count + kThreads - 1) / kThreads, 8192));
}

// One thread per output: the window's first maximum, skipping padding.
__global__ void maxPoolForwardKernel(const float* x, int64_t planes, int64_t h, int64_t w, int64_t oh,
                                     int64_t ow, PoolSpec spec, float* y, int32_t* argmax) {
  const uint64_t count = static_cast<uint64_t>(planes * oh * ow);
  for (uint64_t out = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; out < count;
       out += uint64_t{gridDim.x} * blockDim.x) {
    const int64_t j = static_cast<int64_t>(out % ow), i = static_cast<int64_t>(out / ow % oh),
                  plane = static_cast<int64_t>(out / (ow * oh));
    const WindowMax best = windowMax(x, plane * h * w, h, w, i, j, spec);
    y[out] = best.value;
    argmax[out] = static_cast<int32_t>(best.index);
  }
}

// Windows overlap (3x3, stride 2), so several outputs may scatter into one input.
__global__ void maxPoolBackwardKernel(const float* dy, const int32_t* argmax, uint64_t outCount, float* dx) {
  for (uint64_t out = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; out < outCount;
       out += uint64_t{gridDim.x} * blockDim.x) {
    if (argmax[out] >= 0) atomicAdd(dx + argmax[out], dy[out]);
  }
}

// One warp per plane: the plane's sum, reduced across the warp.
__global__ void globalAvgPoolForwardKernel(const float* x, int64_t planes, int64_t planeSize, float* y) {
  const int64_t warp = (blockIdx.x * int64_t{blockDim.x} + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (warp >= planes) return;
  const float* in = x + warp * planeSize;
  float sum = 0.0f;
  for (int64_t i = lane; i < planeSize; i += 32) sum += in[i];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0) y[warp] = sum / static_cast<float>(planeSize);
}

__global__ void globalAvgPoolBackwardKernel(const float* dy, uint64_t count, int64_t planeSize, float* dx) {
  const float scale = 1.0f / static_cast<float>(planeSize);
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += uint64_t{gridDim.x} * blockDim.x)
    dx[i] = dy[i / planeSize] * scale;
}

}  // namespace

void maxPoolForward(cudaStream_t stream, const float* x, int64_t n, int64_t c, int64_t h, int64_t w,
                    const PoolSpec& spec, float* y, int32_t* argmax) {
  const int64_t oh = spec.outSize(h), ow = spec.outSize(w);
  const uint64_t count = static_cast<uint64_t>(n * c * oh * ow);
  if (count == 0) return;
  maxPoolForwardKernel<<<blocksFor(count), kThreads, 0, stream>>>(x, n * c, h, w, oh, ow, spec, y, argmax);
  checkLaunch("max pool forward");
}

void maxPoolBackward(cudaStream_t stream, const float* dy, const int32_t* argmax, uint64_t outCount,
                     float* dx, uint64_t inCount) {
  check(cudaMemsetAsync(dx, 0, inCount * sizeof(float), stream), "max pool backward (zeroing dx)");
  if (outCount == 0) return;
  maxPoolBackwardKernel<<<blocksFor(outCount), kThreads, 0, stream>>>(dy, argmax, outCount, dx);
  checkLaunch("max pool backward");
}

void globalAvgPoolForward(cudaStream_t stream, const float* x, int64_t planes, int64_t planeSize, float* y) {
  if (planes == 0) return;
  const uint64_t threads = static_cast<uint64_t>(planes) * 32;
  globalAvgPoolForwardKernel<<<static_cast<unsigned>((threads + kThreads - 1) / kThreads), kThreads, 0,
                               stream>>>(x, planes, planeSize, y);
  checkLaunch("global average pool forward");
}

void globalAvgPoolBackward(cudaStream_t stream, const float* dy, int64_t planes, int64_t planeSize,
                           float* dx) {
  const uint64_t count = static_cast<uint64_t>(planes * planeSize);
  if (count == 0) return;
  globalAvgPoolBackwardKernel<<<blocksFor(count), kThreads, 0, stream>>>(dy, count, planeSize, dx);
  checkLaunch("global average pool backward");
}

}  // namespace dtb::nn::cuda
