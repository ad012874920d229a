// A failed CUDA runtime call as std::runtime_error naming it
// ("cudaSetDevice: invalid device ordinal"): how the host's GPU code in
// core/cuda reports, its callers saying where (a service's message, a
// run's error). CUDA sources only.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace dtb::core {

inline void checkCuda(cudaError_t result, const char* what) {
  if (result == cudaSuccess) return;
  // Reported here: a later cudaGetLastError must not blame another call for it.
  cudaGetLastError();
  throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(result));
}

}  // namespace dtb::core
