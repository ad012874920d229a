#include "cuda/cuda_memory.h"
#include "cuda/gpu_tensor_ops.h"

namespace dtb::core {

void* gpuWorkStream(int) { throw GpuUnavailable("this build of dtbench has no CUDA"); }

void gpuSettleWorkStreams() {}  // no GPU, no stream

void gpuScaledCopy(float*, const float*, uint64_t, float, bool, int) {
  throw GpuUnavailable("this build of dtbench has no CUDA");
}

void gpuTypedCopy(void*, dtb_dtype_t, const void*, dtb_dtype_t, uint64_t, float, bool, int) {
  throw GpuUnavailable("this build of dtbench has no CUDA");
}

void gpuFlagNonFinite(const void*, dtb_dtype_t, uint64_t, int*, int) {
  throw GpuUnavailable("this build of dtbench has no CUDA");
}

}  // namespace dtb::core
