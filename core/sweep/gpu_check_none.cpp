// The GPU check in a build without the CUDA toolkit: there is no GPU memory to check.
#include "cuda/cuda_memory.h"
#include "sweep/gpu_check.h"

namespace dtb::core {

int64_t countWrongOnGpu(const dtb_tensor_t& /*result*/, const sweep::Expectation& /*expected*/) {
  throw GpuUnavailable("this dtbench was built without CUDA (no toolkit found, or -DDTBENCH_CUDA=OFF)");
}

}  // namespace dtb::core
