#include "buffer_pool.h"

#include "dtbench/plugin.hpp"

namespace dtb::strategy::zero {

BufferPool::~BufferPool() {
  for (float* b : all_) host_->free(host_->ctx, b);
}

float* BufferPool::acquire() {
  if (!free_.empty()) {
    float* b = free_.back();
    free_.pop_back();
    return b;
  }
  void* memory = nullptr;
  // At least one float, so a buffer is never null (units may be empty).
  const uint64_t floats = floats_ > 0 ? floats_ : 1;
  check(host_->alloc(host_->ctx, floats * sizeof(float), device_, DTB_MEM_BUFFERS, &memory), "alloc");
  all_.push_back(static_cast<float*>(memory));
  return all_.back();
}

void BufferPool::release(float* buffer) {
  if (buffer) free_.push_back(buffer);
}

}  // namespace dtb::strategy::zero
