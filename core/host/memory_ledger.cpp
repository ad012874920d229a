#include "host/memory_ledger.h"

#include <sys/sysinfo.h>

#include <cstdlib>
#include <limits>
#include <new>

#include "cuda/cuda_memory.h"

namespace dtb::core {
namespace {

constexpr uint64_t kAlignment = 64;  // a cache line; enough for AVX-512 loads

uint64_t machineBytes() {
  struct sysinfo info {};
  if (sysinfo(&info) != 0) return std::numeric_limits<uint64_t>::max();
  return (static_cast<uint64_t>(info.totalram) + info.totalswap) * info.mem_unit;
}

}  // namespace

MemoryLedger::~MemoryLedger() {
  for (auto& [ptr, block] : blocks_) free(ptr, block);
}

void MemoryLedger::free(void* ptr, const Block& block) {
  if (block.device.type == DTB_DEVICE_CUDA) {
    gpuFree(ptr, block.device.index);
  } else if (block.device.type == DTB_DEVICE_CUDA_HOST) {
    pinnedFree(ptr);
  } else {
    std::free(ptr);
  }
}

// Pinned host memory is host memory: it counts there.
int MemoryLedger::counted(dtb_device_type_t type) { return type == DTB_DEVICE_CUDA ? 1 : 0; }

void* MemoryLedger::allocate(uint64_t bytes, dtb_mem_category_t category, dtb_device_t device) {
  if (bytes == 0) return nullptr;
  void* ptr = nullptr;
  if (device.type == DTB_DEVICE_CUDA) {
    ptr = gpuAllocate(bytes, device.index);  // the driver refuses what the GPU cannot hold
  } else if (device.type == DTB_DEVICE_CUDA_HOST) {
    ptr = pinnedAllocate(bytes);
  } else {
    // Rounding up must not wrap (2^64 - 1 bytes would become 0, a "success").
    if (bytes > std::numeric_limits<size_t>::max() - kAlignment) throw std::bad_alloc();
    // More than the machine has can never be backed: refused here rather than
    // left to malloc, which overcommits (the rank is killed later, on first
    // touch) or, under a sanitizer, aborts the process.
    if (bytes > machineBytes()) throw std::bad_alloc();
    const uint64_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    ptr = std::aligned_alloc(kAlignment, rounded);
    if (ptr == nullptr) throw std::bad_alloc();
  }
  std::lock_guard lock(mutex_);
  blocks_[ptr] = Block{bytes, category, device};
  const int where = counted(device.type);
  uint64_t& now = current_[where][category];
  now += bytes;
  if (now > peak_[where][category]) peak_[where][category] = now;
  return ptr;
}

bool MemoryLedger::release(void* ptr) {
  if (ptr == nullptr) return true;
  Block block{};
  {
    std::lock_guard lock(mutex_);
    auto it = blocks_.find(ptr);
    if (it == blocks_.end()) return false;
    block = it->second;
    current_[counted(block.device.type)][block.category] -= block.bytes;
    blocks_.erase(it);
  }
  free(ptr, block);
  return true;
}

uint64_t MemoryLedger::current(dtb_mem_category_t category, dtb_device_type_t where) const {
  std::lock_guard lock(mutex_);
  return current_[counted(where)][category];
}

uint64_t MemoryLedger::peak(dtb_mem_category_t category, dtb_device_type_t where) const {
  std::lock_guard lock(mutex_);
  return peak_[counted(where)][category];
}

uint64_t MemoryLedger::currentTotal(dtb_device_type_t where) const {
  std::lock_guard lock(mutex_);
  uint64_t total = 0;
  for (uint64_t bytes : current_[counted(where)]) total += bytes;
  return total;
}

}  // namespace dtb::core
