// Built only when the CUDA toolkit is present (DTBENCH_HAVE_CUDA).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "cuda/cuda_memory.h"
#include "sweep/gpu_check.h"

namespace dtb::core {
namespace {

// Element i as a double, and what `v` becomes when stored in the dtype
// (float rounding, integer wrapping), as the host's check reads them.
template <typename T>
__device__ double load(const void* data, uint64_t i) {
  const T v = static_cast<const T*>(data)[i];
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(v);
  } else {
    return static_cast<double>(v);
  }
}

template <typename T>
__device__ double stored(double v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(__float2half_rn(static_cast<float>(v)));
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(__float2bfloat16_rn(static_cast<float>(v)));
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<double>(static_cast<T>(v));
  } else {
    return static_cast<double>(static_cast<T>(static_cast<int64_t>(v)));
  }
}

template <typename T>
__global__ void countWrong(const void* data, uint64_t count, sweep::Expectation expected, double tolerance,
                           unsigned long long* wrong) {
  unsigned long long mine = 0;
  for (uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
    const double want = stored<T>(expected.at(i));
    if (fabs(load<T>(data, i) - want) > tolerance * fabs(want)) ++mine;
  }
  if (mine > 0) atomicAdd(wrong, mine);
}

void checked(cudaError_t error, const char* what) {
  if (error != cudaSuccess) {
    cudaGetLastError();
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(error));
  }
}

}  // namespace

int64_t countWrongOnGpu(const dtb_tensor_t& result, const sweep::Expectation& expected) {
  if (result.count == 0) return 0;
  const int device = result.device.index;
  GpuBuffer counter(sizeof(unsigned long long), device);
  auto* wrong = static_cast<unsigned long long*>(counter.data());
  checked(cudaMemset(wrong, 0, sizeof(*wrong)), "cudaMemset");
  const int threads = 256;
  const auto blocks = static_cast<unsigned>(std::min<uint64_t>((result.count + threads - 1) / threads, 4096));
  const double tol = sweep::tolerance(result.dtype);
  switch (result.dtype) {
    case DTB_DTYPE_F32:
      countWrong<float><<<blocks, threads>>>(result.data, result.count, expected, tol, wrong);
      break;
    case DTB_DTYPE_F64:
      countWrong<double><<<blocks, threads>>>(result.data, result.count, expected, tol, wrong);
      break;
    case DTB_DTYPE_F16:
      countWrong<__half><<<blocks, threads>>>(result.data, result.count, expected, tol, wrong);
      break;
    case DTB_DTYPE_BF16:
      countWrong<__nv_bfloat16><<<blocks, threads>>>(result.data, result.count, expected, tol, wrong);
      break;
    case DTB_DTYPE_I32:
      countWrong<int32_t><<<blocks, threads>>>(result.data, result.count, expected, tol, wrong);
      break;
    case DTB_DTYPE_I64:
      countWrong<int64_t><<<blocks, threads>>>(result.data, result.count, expected, tol, wrong);
      break;
    case DTB_DTYPE_I8:
      countWrong<int8_t><<<blocks, threads>>>(result.data, result.count, expected, tol, wrong);
      break;
    case DTB_DTYPE_U8:
      countWrong<uint8_t><<<blocks, threads>>>(result.data, result.count, expected, tol, wrong);
      break;
  }
  checked(cudaGetLastError(), "the check kernel's launch");
  unsigned long long total = 0;
  checked(cudaMemcpy(&total, wrong, sizeof(total), cudaMemcpyDeviceToHost), "cudaMemcpy of the count");
  return static_cast<int64_t>(total);
}

}  // namespace dtb::core
