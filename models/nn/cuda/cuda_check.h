// CUDA, cuDNN and cuBLAS results turned into dtb::Error naming the call:
// the layers throw, and the model plugin's C wrapper reports the message.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <string>

#include "dtbench/plugin.hpp"

namespace dtb::nn::cuda {

inline void check(cudaError_t result, const char* what) {
  if (result == cudaSuccess) return;
  const dtb_status_t status =
      result == cudaErrorMemoryAllocation ? DTB_STATUS_OUT_OF_MEMORY : DTB_STATUS_INTERNAL;
  throw Error(status, std::string(what) + ": " + cudaGetErrorString(result));
}

inline void check(cudnnStatus_t result, const char* what) {
  if (result == CUDNN_STATUS_SUCCESS) return;
  const dtb_status_t status =
      result == CUDNN_STATUS_ALLOC_FAILED ? DTB_STATUS_OUT_OF_MEMORY : DTB_STATUS_INTERNAL;
  throw Error(status, std::string(what) + ": " + cudnnGetErrorString(result));
}

inline void check(cublasStatus_t result, const char* what) {
  if (result == CUBLAS_STATUS_SUCCESS) return;
  const dtb_status_t status =
      result == CUBLAS_STATUS_ALLOC_FAILED ? DTB_STATUS_OUT_OF_MEMORY : DTB_STATUS_INTERNAL;
  throw Error(status, std::string(what) + ": " + cublasGetStatusString(result));
}

// A kernel launch's own error (bad configuration), checked at once.
inline void checkLaunch(const char* kernel) { check(cudaGetLastError(), kernel); }

}  // namespace dtb::nn::cuda
