// Built only when the CUDA toolkit is present (DTBENCH_HAVE_CUDA).
#include <cuda_runtime_api.h>

#include "cuda/cuda_probe.h"

namespace dtb::core {

CudaProbe probeCuda() {
  CudaProbe probe;
  probe.built = true;
  cudaRuntimeGetVersion(&probe.runtimeVersion);
  if (cudaDriverGetVersion(&probe.driverVersion) != cudaSuccess) probe.driverVersion = 0;
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    probe.problem = cudaGetErrorString(status);
    cudaGetLastError();  // clear the sticky error for later callers
    return probe;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp properties{};
    if (cudaGetDeviceProperties(&properties, i) == cudaSuccess) probe.devices.emplace_back(properties.name);
  }
  if (probe.devices.empty()) probe.problem = "no CUDA device";
  return probe;
}

dtb_device_t gpuForLocalRank(int localRank) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    return {DTB_DEVICE_HOST, 0};
  }
  return {DTB_DEVICE_CUDA, (localRank < 0 ? 0 : localRank) % count};
}

}  // namespace dtb::core
