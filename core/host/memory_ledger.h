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

  // 64-byte aligned host memory, or GPU memory (cudaMalloc) on a
  // DTB_DEVICE_CUDA device; nullptr for 0 bytes. Throws std::bad_alloc, or
  // GpuUnavailable (cuda/cuda_memory.h) for a GPU this process cannot use.
  void* allocate(uint64_t bytes, dtb_mem_category_t category, dtb_device_t device = {DTB_DEVICE_HOST, 0});
  // Returns false when `ptr` did not come from allocate().
  bool release(void* ptr);

  // Host memory (DTB_DEVICE_HOST), or GPU memory of all GPUs together.
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
  void free(void* ptr, const Block& block);
  mutable std::mutex mutex_;
  std::unordered_map<void*, Block> blocks_;
  std::array<Counts, 2> current_{};  // by dtb_device_type_t
  std::array<Counts, 2> peak_{};
};

}  // namespace dtb::core
