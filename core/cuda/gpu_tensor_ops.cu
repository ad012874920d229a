#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/cuda_error.h"
#include "cuda/cuda_memory.h"
#include "cuda/gpu_tensor_ops.h"

namespace dtb::core {
namespace {

__global__ void scaledCopyKernel(float* dst, const float* src, uint64_t count, float scale, bool accumulate) {
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += uint64_t{gridDim.x} * blockDim.x) {
    const float value = src ? scale * src[i] : 0.0f;
    dst[i] = accumulate && src ? dst[i] + value : value;
  }
}

// f32, f16 and bf16 elements to f32 and back (round to nearest even).
__device__ float toFloat(float v) { return v; }
__device__ float toFloat(__half v) { return __half2float(v); }
__device__ float toFloat(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T>
__device__ T fromFloat(float v);
template <>
__device__ float fromFloat<float>(float v) {
  return v;
}
template <>
__device__ __half fromFloat<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

template <typename To, typename From>
__global__ void typedCopyKernel(To* dst, const From* src, uint64_t count, float scale, bool accumulate) {
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += uint64_t{gridDim.x} * blockDim.x) {
    const float value = src ? scale * toFloat(src[i]) : 0.0f;
    dst[i] = fromFloat<To>(accumulate && src ? toFloat(dst[i]) + value : value);
  }
}

template <typename To, typename From>
void launchTypedCopy(void* dst, const void* src, uint64_t count, float scale, bool accumulate,
                     cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>(std::min<uint64_t>((count + 255) / 256, 4096));
  typedCopyKernel<To, From><<<blocks, 256, 0, stream>>>(static_cast<To*>(dst), static_cast<const From*>(src),
                                                        count, scale, accumulate);
}

template <typename To>
void launchFrom(dtb_dtype_t srcType, void* dst, const void* src, uint64_t count, float scale, bool accumulate,
                cudaStream_t stream) {
  switch (srcType) {
    case DTB_DTYPE_F32:
      return launchTypedCopy<To, float>(dst, src, count, scale, accumulate, stream);
    case DTB_DTYPE_F16:
      return launchTypedCopy<To, __half>(dst, src, count, scale, accumulate, stream);
    case DTB_DTYPE_BF16:
      return launchTypedCopy<To, __nv_bfloat16>(dst, src, count, scale, accumulate, stream);
    default:
      throw std::invalid_argument("src is not f32, f16 or bf16");
  }
}

template <typename T>
__global__ void flagNonFiniteKernel(const T* values, uint64_t count, int* flag) {
  bool found = false;
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += uint64_t{gridDim.x} * blockDim.x) {
    found |= !isfinite(toFloat(values[i]));
  }
  // Every thread that found one writes the same 1: no atomics needed.
  if (found) *flag = 1;
}

struct WorkStreams {
  std::mutex mutex;
  std::vector<cudaStream_t> byDevice;  // never destroyed (the process's)
};

WorkStreams& workStreams() {
  static WorkStreams streams;
  return streams;
}

}  // namespace

void* gpuWorkStream(int device) {
  WorkStreams& streams = workStreams();
  std::lock_guard lock(streams.mutex);
  if (device < 0) throw std::invalid_argument("no GPU " + std::to_string(device));
  if (streams.byDevice.size() <= static_cast<size_t>(device)) streams.byDevice.resize(device + 1, nullptr);
  if (!streams.byDevice[device]) {
    checkCuda(cudaSetDevice(device), "cudaSetDevice");
    checkCuda(cudaStreamCreate(&streams.byDevice[device]), "cudaStreamCreate (the host's stream)");
  }
  return streams.byDevice[device];
}

void gpuSettleWorkStreams() {
  std::vector<cudaStream_t> made;
  {
    WorkStreams& streams = workStreams();
    std::lock_guard lock(streams.mutex);
    made = streams.byDevice;
  }
  for (cudaStream_t stream : made) {
    if (stream) checkCuda(cudaStreamSynchronize(stream), "waiting for the host's stream");
  }
}

void gpuScaledCopy(float* dst, const float* src, uint64_t count, float scale, bool accumulate, int device) {
  if (count == 0) return;
  if (!isMemoryOfGpu(dst, device) || (src && !isMemoryOfGpu(src, device)))
    throw std::invalid_argument("a tensor is not memory of GPU " + std::to_string(device));
  auto* stream = static_cast<cudaStream_t>(gpuWorkStream(device));
  checkCuda(cudaSetDevice(device), "cudaSetDevice");
  const unsigned blocks = static_cast<unsigned>(std::min<uint64_t>((count + 255) / 256, 4096));
  scaledCopyKernel<<<blocks, 256, 0, stream>>>(dst, src, count, scale, accumulate);
  checkCuda(cudaGetLastError(), "the tensor copy's kernel");
}

void gpuTypedCopy(void* dst, dtb_dtype_t dstType, const void* src, dtb_dtype_t srcType, uint64_t count,
                  float scale, bool accumulate, int device) {
  if (count == 0) return;
  if (!isMemoryOfGpu(dst, device) || (src && !isMemoryOfGpu(src, device)))
    throw std::invalid_argument("a tensor is not memory of GPU " + std::to_string(device));
  auto* stream = static_cast<cudaStream_t>(gpuWorkStream(device));
  checkCuda(cudaSetDevice(device), "cudaSetDevice");
  switch (dstType) {
    case DTB_DTYPE_F32:
      launchFrom<float>(srcType, dst, src, count, scale, accumulate, stream);
      break;
    case DTB_DTYPE_F16:
      launchFrom<__half>(srcType, dst, src, count, scale, accumulate, stream);
      break;
    case DTB_DTYPE_BF16:
      launchFrom<__nv_bfloat16>(srcType, dst, src, count, scale, accumulate, stream);
      break;
    default:
      throw std::invalid_argument("dst is not f32, f16 or bf16");
  }
  checkCuda(cudaGetLastError(), "the tensor copy's kernel");
}

void gpuFlagNonFinite(const void* values, dtb_dtype_t dtype, uint64_t count, int* flag, int device) {
  if (count == 0) return;
  if (!isMemoryOfGpu(values, device) || !isMemoryOfGpu(flag, device))
    throw std::invalid_argument("the values or the flag are not memory of GPU " + std::to_string(device));
  auto* stream = static_cast<cudaStream_t>(gpuWorkStream(device));
  checkCuda(cudaSetDevice(device), "cudaSetDevice");
  const unsigned blocks = static_cast<unsigned>(std::min<uint64_t>((count + 255) / 256, 1024));
  switch (dtype) {
    case DTB_DTYPE_F32:
      flagNonFiniteKernel<<<blocks, 256, 0, stream>>>(static_cast<const float*>(values), count, flag);
      break;
    case DTB_DTYPE_F16:
      flagNonFiniteKernel<<<blocks, 256, 0, stream>>>(static_cast<const __half*>(values), count, flag);
      break;
    case DTB_DTYPE_BF16:
      flagNonFiniteKernel<<<blocks, 256, 0, stream>>>(static_cast<const __nv_bfloat16*>(values), count, flag);
      break;
    default:
      throw std::invalid_argument("the values are not f32, f16 or bf16");
  }
  checkCuda(cudaGetLastError(), "the finiteness check's kernel");
}

}  // namespace dtb::core
