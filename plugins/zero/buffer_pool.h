// Reusable flat buffers of one size (the largest unit), from the host's
// allocator: gradient staging and gathered parameters come and go every
// layer, so they are recycled rather than allocated each time. Counted as
// buffers; the peak is what the memory report shows.
#pragma once

#include <cstdint>
#include <vector>

#include "dtbench/dtbench.h"

namespace dtb::strategy::zero {

class BufferPool {
 public:
  BufferPool(const dtb_host_t* host, uint64_t floats, dtb_device_t device)
      : host_(host), floats_(floats), device_(device) {}
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  float* acquire();
  void release(float* buffer);
  uint64_t peakBytes() const { return all_.size() * floats_ * sizeof(float); }

 private:
  const dtb_host_t* host_;
  uint64_t floats_;
  dtb_device_t device_;
  std::vector<float*> all_, free_;
};

}  // namespace dtb::strategy::zero
