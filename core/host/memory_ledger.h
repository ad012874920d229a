// Bytes allocated through the host, per category, current and peak: the
// memory figures a run reports per rank. Host and GPU memory are counted
// apart (a GPU run's parameters live on the GPU, its staging on the host).
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "dtbench/dtbench.h"

namespace dtb::core {

class MemoryLedger {
 public:
  static constexpr int kCategories = DTB_MEM_OTHER + 1;

  ~MemoryLedger();  // frees what a plugin leaked, so the run does not

  // 64-byte aligned host memory, GPU memory (cudaMalloc) on a
  // DTB_DEVICE_CUDA device, or pinned host memory (cudaMallocHost) for
  // DTB_DEVICE_CUDA_HOST, counted as host memory; nullptr for 0 bytes. Throws std::bad_alloc, or
  // GpuUnavailable (cuda/cuda_memory.h) for a GPU this process cannot use.
  void* allocate(uint64_t bytes, dtb_mem_category_t category, dtb_device_t device = {DTB_DEVICE_HOST, 0});
  // Returns false when `ptr` did not come from allocate().
  bool release(void* ptr);

  // Host memory (DTB_DEVICE_HOST, pinned included), or GPU memory of all
  // GPUs together (DTB_DEVICE_CUDA).
  uint64_t current(dtb_mem_category_t category, dtb_device_type_t where = DTB_DEVICE_HOST) const;
  uint64_t peak(dtb_mem_category_t category, dtb_device_type_t where = DTB_DEVICE_HOST) const;
  uint64_t currentTotal(dtb_device_type_t where = DTB_DEVICE_HOST) const;

 private:
  struct Block {
    uint64_t bytes;
    dtb_mem_category_t category;
    dtb_device_t device;
  };
  using Counts = std::array<uint64_t, kCategories>;
  static int counted(dtb_device_type_t type);  // the row of current_/peak_ a device's bytes go to
  void free(void* ptr, const Block& block);
  mutable std::mutex mutex_;
  std::unordered_map<void*, Block> blocks_;
  std::array<Counts, 2> current_{};  // host, GPU
  std::array<Counts, 2> peak_{};
};

}  // namespace dtb::core
