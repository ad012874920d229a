// Memory that grows to the largest size asked of it and is freed with its
// owner: each module's output and input gradient on the GPU, as the oneDNN
// modules keep std::vectors, and the pinned host memory that batches are
// staged in (a pageable source makes cudaMemcpyAsync synchronous). Growth
// happens in the first steps only (the largest batch stays), so no GPU
// memory is allocated in the steady state.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu_memory.h"

namespace dtb::nn::cuda {

enum class Memory { kDevice, kPinnedHost };

template <Memory kKind>
class GrowingBuffer {
 public:
  // Pinned host memory (cudaMallocHost); a GPU buffer made so refuses to
  // allocate (CUDA code here is C++17: no constraint to refuse it earlier).
  GrowingBuffer() = default;
  // GPU memory from `memory` (which outlives the buffer), counted under
  // `category`.
  explicit GrowingBuffer(const GpuMemory& memory, dtb_mem_category_t category = DTB_MEM_ACTIVATIONS)
      : memory_(&memory), category_(category) {}
  GrowingBuffer(const GrowingBuffer&) = delete;
  GrowingBuffer& operator=(const GrowingBuffer&) = delete;
  ~GrowingBuffer();

  // At least `bytes`, contents undefined after a growth.
  void* bytes(size_t bytes);
  float* floats(uint64_t count) { return static_cast<float*>(bytes(count * sizeof(float))); }
  void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void release();
  const GpuMemory* memory_ = nullptr;
  dtb_mem_category_t category_ = DTB_MEM_ACTIVATIONS;
  void* data_ = nullptr;
  size_t size_ = 0;
};

using DeviceBuffer = GrowingBuffer<Memory::kDevice>;
using PinnedBuffer = GrowingBuffer<Memory::kPinnedHost>;

}  // namespace dtb::nn::cuda
