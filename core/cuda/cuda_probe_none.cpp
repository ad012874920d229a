// The probe of a build without the CUDA toolkit.
#include "cuda/cuda_probe.h"

namespace dtb::core {

CudaProbe probeCuda() {
  CudaProbe probe;
  probe.problem = "this dtbench was built without CUDA (no toolkit found, or -DDTBENCH_CUDA=OFF)";
  return probe;
}

dtb_device_t gpuForLocalRank(int /*localRank*/) { return {DTB_DEVICE_HOST, 0}; }

}  // namespace dtb::core
