// Where the CUDA layers' GPU memory comes from. In a run the model has a
// host, and every block is the host's alloc(): the rank's GPU memory
// figures (memory.gpu_peak_allocated_bytes) count the model's parameters,
// gradients and activations with the strategy's buffers, as PyTorch's
// allocator counts every tensor. The layer tests make layers without a
// host: cudaMalloc, counted nowhere.
#pragma once

#include <cstddef>

#include "dtbench/dtbench.h"

namespace dtb::nn::cuda {

class GpuMemory {
 public:
  GpuMemory(const dtb_host_t* host, int device) : host_(host), device_(device) {}

  // At least `bytes` (1 for 0) of GPU memory, zeroed where the host gives it;
  // throws Error naming `what` when there is not enough.
  void* allocate(size_t bytes, dtb_mem_category_t category, const char* what) const;
  void release(void* block) const noexcept;

  const dtb_host_t* host() const { return host_; }

 private:
  const dtb_host_t* host_;  // nullptr: cudaMalloc
  int device_;
};

}  // namespace dtb::nn::cuda
