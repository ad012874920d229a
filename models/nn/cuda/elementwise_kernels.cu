#include <algorithm>

#include "cuda_check.h"
#include "kernels.h"

namespace dtb::nn::cuda {
namespace {

constexpr int kThreads = 256;

// Grid-stride loops: enough blocks to fill any GPU, never more than needed.
unsigned blocksFor(uint64_t count) {
  return static_cast<unsigned>(std::min<uint64_t>((count + kThreads - 1) / kThreads, 8192));
}

__global__ void reluForwardKernel(const float* x, float* y, uint64_t count, bool clip) {
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += uint64_t{gridDim.x} * blockDim.x) {
    const float v = x[i] > 0.0f ? x[i] : 0.0f;
    y[i] = clip && v > 6.0f ? 6.0f : v;
  }
}

__global__ void reluBackwardKernel(const float* y, const float* dy, float* dx, uint64_t count, bool clip) {
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += uint64_t{gridDim.x} * blockDim.x) {
    const bool through = y[i] > 0.0f && (!clip || y[i] < 6.0f);
    dx[i] = through ? dy[i] : 0.0f;
  }
}

__global__ void addKernel(const float* a, const float* b, float* y, uint64_t count, bool relu) {
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += uint64_t{gridDim.x} * blockDim.x) {
    const float sum = a[i] + b[i];
    y[i] = relu && sum < 0.0f ? 0.0f : sum;
  }
}

__global__ void multiplyKernel(const float* a, const float* b, float* y, uint64_t count) {
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += uint64_t{gridDim.x} * blockDim.x)
    y[i] = a[i] * b[i];
}

// splitmix64's finaliser: a well-mixed 64-bit value from a counter.
__device__ uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

__global__ void dropoutKernel(const float* x, float* y, float* mask, uint64_t count, uint64_t drawEvery,
                              float p, float scale, uint64_t key) {
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += uint64_t{gridDim.x} * blockDim.x) {
    const uint64_t draw = i / drawEvery;
    const double u = static_cast<double>(mix(key + draw * 0x9e3779b97f4a7c15ULL) >> 11) * 0x1.0p-53;
    const float m = u >= p ? scale : 0.0f;
    mask[i] = m;
    y[i] = x[i] * m;
  }
}

__global__ void addBiasKernel(float* y, const float* bias, uint64_t count, int64_t out) {
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += uint64_t{gridDim.x} * blockDim.x)
    y[i] += bias[i % out];
}

__global__ void biasGradKernel(const float* dy, int64_t n, int64_t out, float* db) {
  const int64_t o = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (o >= out) return;
  float sum = 0.0f;
  for (int64_t i = 0; i < n; ++i) sum += dy[i * out + o];
  db[o] = sum;
}

}  // namespace

void reluForward(cudaStream_t stream, const float* x, float* y, uint64_t count, bool clip) {
  if (count == 0) return;
  reluForwardKernel<<<blocksFor(count), kThreads, 0, stream>>>(x, y, count, clip);
  checkLaunch("relu forward");
}

void reluBackward(cudaStream_t stream, const float* y, const float* dy, float* dx, uint64_t count,
                  bool clip) {
  if (count == 0) return;
  reluBackwardKernel<<<blocksFor(count), kThreads, 0, stream>>>(y, dy, dx, count, clip);
  checkLaunch("relu backward");
}

void addForward(cudaStream_t stream, const float* a, const float* b, float* y, uint64_t count, bool relu) {
  if (count == 0) return;
  addKernel<<<blocksFor(count), kThreads, 0, stream>>>(a, b, y, count, relu);
  checkLaunch("residual add");
}

void multiply(cudaStream_t stream, const float* a, const float* b, float* y, uint64_t count) {
  if (count == 0) return;
  multiplyKernel<<<blocksFor(count), kThreads, 0, stream>>>(a, b, y, count);
  checkLaunch("multiply");
}

void dropoutForward(cudaStream_t stream, const float* x, float* y, float* mask, uint64_t count,
                    uint64_t drawEvery, double p, uint64_t seed, uint64_t call) {
  if (count == 0) return;
  drawEvery = drawEvery > 0 ? drawEvery : 1;
  const float scale = p < 1.0 ? static_cast<float>(1.0 / (1.0 - p)) : 0.0f;
  const uint64_t key = seed * 0xd1342543de82ef95ULL + call * 0x2545f4914f6cdd1dULL;
  dropoutKernel<<<blocksFor(count), kThreads, 0, stream>>>(x, y, mask, count, drawEvery,
                                                           static_cast<float>(p), scale, key);
  checkLaunch("dropout");
}

void addBias(cudaStream_t stream, float* y, const float* bias, int64_t n, int64_t out) {
  const uint64_t count = static_cast<uint64_t>(n * out);
  if (count == 0) return;
  addBiasKernel<<<blocksFor(count), kThreads, 0, stream>>>(y, bias, count, out);
  checkLaunch("add bias");
}

void biasGrad(cudaStream_t stream, const float* dy, int64_t n, int64_t out, float* db) {
  if (out == 0) return;
  biasGradKernel<<<static_cast<unsigned>((out + kThreads - 1) / kThreads), kThreads, 0, stream>>>(dy, n, out,
                                                                                                  db);
  checkLaunch("bias gradient");
}

}  // namespace dtb::nn::cuda
