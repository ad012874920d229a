#include "cuda/gpu_memory_meter.h"

#include <algorithm>

namespace dtb::core {

void GpuMemoryMeter::allocated(const void* block, uint64_t bytes) {
  if (block == nullptr) return;
  const std::lock_guard lock(mutex_);
  blocks_[block] = bytes;
  current_ += bytes;
  peak_ = std::max(peak_, current_);
}

void GpuMemoryMeter::freed(const void* block) {
  const std::lock_guard lock(mutex_);
  const auto at = blocks_.find(block);
  if (at == blocks_.end()) return;
  current_ -= at->second;
  blocks_.erase(at);
}

uint64_t GpuMemoryMeter::current() const {
  const std::lock_guard lock(mutex_);
  return current_;
}

uint64_t GpuMemoryMeter::peak() const {
  const std::lock_guard lock(mutex_);
  return peak_;
}

GpuMemoryMeter& gpuMemoryMeter() {
  // Never destroyed: a static that frees GPU memory at exit may run after
  // any destructor of ours would have.
  static auto* meter = new GpuMemoryMeter;
  return *meter;
}

}  // namespace dtb::core
