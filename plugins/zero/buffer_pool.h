// Reusable flat buffers of one size (the largest unit) and dtype, from the host's
// allocator: gradient staging and gathered parameters come and go every
// layer, so they are recycled rather than allocated each time. Counted as
// buffers; the peak is what the memory report shows.
#pragma once

#include <cstdint>
#include <vector>

#include "dtbench/plugin.hpp"

namespace dtb::strategy::zero {

class BufferPool {
 public:
  BufferPool(const dtb_host_t* host, uint64_t elements, dtb_dtype_t dtype, dtb_device_t device)
      : host_(host), bytes_(elements * dtypeSize(dtype)), device_(device) {}
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  void* acquire();
  void release(void* buffer);
  uint64_t peakBytes() const { return all_.size() * bytes_; }

 private:
  const dtb_host_t* host_;
  uint64_t bytes_;  // of each buffer
  dtb_device_t device_;
  std::vector<void*> all_, free_;
};

}  // namespace dtb::strategy::zero
