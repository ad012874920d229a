// A failed CUDA runtime call as std::runtime_error naming it
// ("cudaSetDevice: invalid device ordinal"): how the host's GPU code in
// core/cuda reports, its callers saying where (a service's message, a
// run's error). CUDA sources only.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "cuda/cuda_memory.h"

namespace dtb::core {

inline void checkCuda(cudaError_t result, const char* what) {
  if (result == cudaSuccess) return;
  // Reported here: a later cudaGetLastError must not blame another call for it.
  cudaGetLastError();
  throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(result));
}

// GpuUnavailable ("no GPU 3 to copy batches to") unless GPU `device` is
// visible; `purpose` ends the message.
inline void requireGpu(int device, const char* purpose) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || device < 0 || device >= count)
    throw GpuUnavailable("no GPU " + std::to_string(device) + " " + purpose);
}

}  // namespace dtb::core
