#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "cuda/cuda_error.h"
#include "cuda/gpu_norm.h"

namespace dtb::core {
namespace {

__device__ double squared(float v) { return static_cast<double>(v) * v; }
__device__ double squared(__half v) { return squared(__half2float(v)); }
__device__ double squared(__nv_bfloat16 v) { return squared(__bfloat162float(v)); }

constexpr unsigned kThreads = 256;

// Each block sums its grid-stride share in f64, reduces it in shared
// memory, and adds it to *sum: one atomic a block.
template <typename T>
__global__ void squaredSumKernel(const T* x, uint64_t count, double* sum) {
  __shared__ double partial[kThreads];
  double mine = 0;
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += uint64_t{gridDim.x} * blockDim.x)
    mine += squared(x[i]);
  partial[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, partial[0]);
}

// One f64 of GPU memory per GPU, kept for the process: the sum of each call.
double* sumOn(int device) {
  static std::mutex mutex;
  static std::map<int, double*> sums;
  std::lock_guard lock(mutex);
  double*& sum = sums[device];
  if (!sum) checkCuda(cudaMalloc(&sum, sizeof(double)), "cudaMalloc of the gradient norm's sum");
  return sum;
}

}  // namespace

double gpuSquaredNorm(const dtb_tensor_t* tensors, uint32_t count, int device) {
  for (uint32_t t = 0; t < count; ++t) {
    const dtb_tensor_t& g = tensors[t];
    const bool typed = g.dtype == DTB_DTYPE_F32 || g.dtype == DTB_DTYPE_F16 || g.dtype == DTB_DTYPE_BF16;
    if (!typed || g.device.type != DTB_DEVICE_CUDA || g.device.index != device || (g.count > 0 && !g.data))
      throw std::invalid_argument("gradient " + std::to_string(t) +
                                  " is not an f32, f16 or bf16 tensor with data on GPU " +
                                  std::to_string(device));
  }
  checkCuda(cudaSetDevice(device), "cudaSetDevice");
  checkCuda(cudaPeekAtLastError(), "the GPU was already in error before the gradient norm");
  double* sum = sumOn(device);
  // On the legacy stream, as the optimizer's kernels: after the gradients' writers.
  checkCuda(cudaMemsetAsync(sum, 0, sizeof(double), 0), "cudaMemsetAsync");
  for (uint32_t t = 0; t < count; ++t) {
    const dtb_tensor_t& g = tensors[t];
    if (g.count == 0) continue;
    const auto blocks = static_cast<unsigned>(std::min<uint64_t>((g.count + kThreads - 1) / kThreads, 1024));
    if (g.dtype == DTB_DTYPE_F32) {
      squaredSumKernel<<<blocks, kThreads>>>(static_cast<const float*>(g.data), g.count, sum);
    } else if (g.dtype == DTB_DTYPE_F16) {
      squaredSumKernel<<<blocks, kThreads>>>(static_cast<const __half*>(g.data), g.count, sum);
    } else {
      squaredSumKernel<<<blocks, kThreads>>>(static_cast<const __nv_bfloat16*>(g.data), g.count, sum);
    }
    checkCuda(cudaGetLastError(), "the gradient norm's kernel");
  }
  double result = 0;
  checkCuda(cudaMemcpy(&result, sum, sizeof(double), cudaMemcpyDeviceToHost), "reading the gradient norm");
  return result;
}

}  // namespace dtb::core
