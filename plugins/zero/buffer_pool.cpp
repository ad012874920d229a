#include "buffer_pool.h"

#include "dtbench/plugin.hpp"

namespace dtb::strategy::zero {

BufferPool::~BufferPool() {
  for (void* b : all_) host_->free(host_->ctx, b);
}

void* BufferPool::acquire() {
  if (!free_.empty()) {
    void* b = free_.back();
    free_.pop_back();
    return b;
  }
  void* memory = nullptr;
  // At least one float's bytes, so a buffer is never null (units may be empty).
  const uint64_t bytes = bytes_ > 0 ? bytes_ : sizeof(float);
  check(host_->alloc(host_->ctx, bytes, device_, DTB_MEM_BUFFERS, &memory), "alloc");
  all_.push_back(memory);
  return all_.back();
}

void BufferPool::release(void* buffer) {
  if (buffer) free_.push_back(buffer);
}

}  // namespace dtb::strategy::zero
