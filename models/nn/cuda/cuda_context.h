// The GPU, stream and library handles one model instance computes with: every
// kernel, cuDNN and cuBLAS call of the model runs on stream(), in order, so
// nothing inside a step waits for the GPU until the loss is read.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include "device_buffer.h"
#include "gpu_memory.h"
#include "layers.h"

namespace dtb::nn::cuda {

class CudaContext {
 public:
  explicit CudaContext(const CudaLayerOptions& options);
  CudaContext(const CudaContext&) = delete;
  CudaContext& operator=(const CudaContext&) = delete;
  ~CudaContext();

  const CudaLayerOptions& options() const { return options_; }
  cudaStream_t stream() const { return stream_; }
  cudnnHandle_t cudnn() const { return cudnn_; }
  cublasHandle_t cublas() const { return cublas_; }
  // Every GPU block of the model's layers comes from here.
  const GpuMemory& memory() const { return memory_; }
  // Scratch memory for cuDNN, shared by every layer (they run one at a time
  // on the stream, so one buffer serves all).
  void* workspace(size_t bytes) { return workspace_.bytes(bytes); }
  void synchronize();

 private:
  CudaLayerOptions options_;
  cudaStream_t stream_ = nullptr;
  cudnnHandle_t cudnn_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  GpuMemory memory_;
  DeviceBuffer workspace_{memory_, DTB_MEM_OTHER};
};

}  // namespace dtb::nn::cuda
