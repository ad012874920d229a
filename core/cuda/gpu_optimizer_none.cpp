#include "cuda/cuda_memory.h"
#include "cuda/gpu_optimizer.h"

namespace dtb::core {

void gpuOptimizerUpdate(const UpdateRule&, float*, const float*, float*, uint64_t, int) {
  throw GpuUnavailable("this build of dtbench has no CUDA");
}

void gpuMasterWeightUpdate(const UpdateRule&, dtb_dtype_t, uint16_t*, const uint16_t*, float*, uint64_t,
                           float, bool, int) {
  throw GpuUnavailable("this build of dtbench has no CUDA");
}

void gpuOptimizerUpdateMany(const UpdateRule&, const std::vector<MultiTensorSlice>&, int) {
  throw GpuUnavailable("this build of dtbench has no CUDA");
}

void gpuMasterWeightUpdateMany(const UpdateRule&, dtb_dtype_t, const std::vector<MultiTensorSlice>&, float,
                               bool, int) {
  throw GpuUnavailable("this build of dtbench has no CUDA");
}

void gpuSynchronize(int) { throw GpuUnavailable("this build of dtbench has no CUDA"); }

}  // namespace dtb::core
