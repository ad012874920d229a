// Bytes allocated through the host, per category, current and peak: the
// memory figures a run reports per rank.
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

  // 64-byte aligned host memory; nullptr for 0 bytes. Throws std::bad_alloc.
  void* allocate(uint64_t bytes, dtb_mem_category_t category);
  // Returns false when `ptr` did not come from allocate().
  bool release(void* ptr);

  uint64_t current(dtb_mem_category_t category) const;
  uint64_t peak(dtb_mem_category_t category) const;
  uint64_t currentTotal() const;

 private:
  struct Block {
    uint64_t bytes;
    dtb_mem_category_t category;
  };
  mutable std::mutex mutex_;
  std::unordered_map<void*, Block> blocks_;
  std::array<uint64_t, kCategories> current_{};
  std::array<uint64_t, kCategories> peak_{};
};

}  // namespace dtb::core
