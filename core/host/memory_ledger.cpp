#include "host/memory_ledger.h"

#include <sys/sysinfo.h>

#include <cstdlib>
#include <limits>
#include <new>

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
  for (auto& [ptr, block] : blocks_) std::free(ptr);
}

void* MemoryLedger::allocate(uint64_t bytes, dtb_mem_category_t category) {
  if (bytes == 0) return nullptr;
  // Rounding up must not wrap (2^64 - 1 bytes would become 0, a "success").
  if (bytes > std::numeric_limits<size_t>::max() - kAlignment) throw std::bad_alloc();
  // More than the machine has can never be backed: refused here rather than
  // left to malloc, which overcommits (the rank is killed later, on first
  // touch) or, under a sanitizer, aborts the process.
  if (bytes > machineBytes()) throw std::bad_alloc();
  const uint64_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* ptr = std::aligned_alloc(kAlignment, rounded);
  if (ptr == nullptr) throw std::bad_alloc();
  std::lock_guard lock(mutex_);
  blocks_[ptr] = Block{bytes, category};
  current_[category] += bytes;
  if (current_[category] > peak_[category]) peak_[category] = current_[category];
  return ptr;
}

bool MemoryLedger::release(void* ptr) {
  if (ptr == nullptr) return true;
  std::lock_guard lock(mutex_);
  auto it = blocks_.find(ptr);
  if (it == blocks_.end()) return false;
  current_[it->second.category] -= it->second.bytes;
  blocks_.erase(it);
  std::free(ptr);
  return true;
}

uint64_t MemoryLedger::current(dtb_mem_category_t category) const {
  std::lock_guard lock(mutex_);
  return current_[category];
}

uint64_t MemoryLedger::peak(dtb_mem_category_t category) const {
  std::lock_guard lock(mutex_);
  return peak_[category];
}

uint64_t MemoryLedger::currentTotal() const {
  std::lock_guard lock(mutex_);
  uint64_t total = 0;
  for (uint64_t bytes : current_) total += bytes;
  return total;
}

}  // namespace dtb::core
