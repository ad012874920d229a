// Horovod's fusion buffer: one persistent buffer (allocated when first
// needed, at least the fusion threshold) into which a group of gradients is
// copied, all-reduced at once, and copied back out — one collective's
// latency for many small tensors. It lives where the gradients do (host
// memory or their GPU) and holds their dtype (bf16 / f16 in mixed
// precision), as Horovod's does; the threshold is in bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "dtbench/model.h"
#include "dtbench/tensor_ops.hpp"
#include "dtbench/typed_buffer.hpp"

namespace dtb::strategy::fusion {

class FusionBuffer {
 public:
  FusionBuffer(const dtb_host_t* host, uint64_t thresholdBytes, dtb_device_t device, dtb_dtype_t dtype)
      : host_(host), thresholdBytes_(thresholdBytes), device_(device), dtype_(dtype), ops_(host, "fusion") {
    ops_.require(device);
  }

  // All-reduces (average) the gradients of `group` through the buffer;
  // `wait` waits for the request, throwing on failure. Traces Horovod's
  // phases (MEMCPY_IN_FUSION_BUFFER, ALLREDUCE, MEMCPY_OUT_FUSION_BUFFER).
  void allreduce(const std::vector<dtb_param_t*>& group, const std::function<void(dtb_request_t)>& wait);

  uint64_t bytes() const { return buffer_.bytes(); }

 private:
  const dtb_host_t* host_;
  uint64_t thresholdBytes_;
  dtb_device_t device_;
  dtb_dtype_t dtype_;
  TensorOps ops_;
  TypedBuffer buffer_;
};

}  // namespace dtb::strategy::fusion
