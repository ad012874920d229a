// GPU memory this process holds through dtbench, now and at its peak: every
// block of gpuAllocate() (cuda_memory.h; the NCCL backend's own 4-byte
// scratch aside), which is what the host's alloc() gives plugins
// (strategies' buckets, partitions and optimizer state; the layer library's
// parameters, gradients, activations and cuDNN workspace), and the host's
// own GPU buffers (prefetch slots, mixed-precision records).
// A worker is one rank, so its peak is the rank's: PyTorch's
// torch.cuda.max_memory_allocated. dtbench has no caching allocator, so
// what it holds from the driver is what it allocated (PyTorch's "reserved"
// is that plus its cache); the CUDA context and what cuDNN, cuBLAS and NCCL
// allocate inside themselves are not in it (memory.gpu_used_bytes has them,
// as the driver counts the whole GPU).
#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace dtb::core {

class GpuMemoryMeter {
 public:
  void allocated(const void* block, uint64_t bytes);
  void freed(const void* block);  // a block it never saw is ignored
  uint64_t current() const;
  uint64_t peak() const;

 private:
  mutable std::mutex mutex_;
  std::unordered_map<const void*, uint64_t> blocks_;
  uint64_t current_ = 0;
  uint64_t peak_ = 0;
};

// This process's meter, fed by gpuAllocate() and gpuFree().
GpuMemoryMeter& gpuMemoryMeter();

}  // namespace dtb::core
