// tensor_ops.hpp — copies between f32 tensor ranges wherever the tensors
// live: loops in host memory, the host's tensor_copy service (ABI 1.7) on a
// GPU. What a strategy fills buckets and fusion buffers with and copies
// results back with, written once for both devices. Optional C++ helper;
// header-only.
//
//   dtb::TensorOps ops(host, "mine");
//   ops.copy(bucketTensor, offset, param->grad, 0, param->grad.count, 1.0f / world);  // into a bucket
//   ops.copy(param->grad, 0, bucketTensor, offset, param->grad.count);               // and back
#ifndef DTBENCH_TENSOR_OPS_HPP
#define DTBENCH_TENSOR_OPS_HPP

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "dtbench/plugin.hpp"

namespace dtb {

// A flat f32 view of `count` elements at `data` on `device`.
inline dtb_tensor_t flatTensor(void* data, uint64_t count, dtb_device_t device) noexcept {
  dtb_tensor_t t = hostTensor(data, count, DTB_DTYPE_F32);
  t.device = device;
  return t;
}

class TensorOps {
 public:
  // `strategy` names the caller in errors.
  TensorOps(const dtb_host_t* host, std::string strategy) : host_(host), strategy_(std::move(strategy)) {}

  // Throws UNSUPPORTED, naming the strategy, when tensors on `device` cannot
  // be copied here (a GPU under a host older than ABI 1.7). Call it once in
  // create, so a run is refused before it starts.
  void require(const dtb_device_t& device) const {
    if (device.type != DTB_DEVICE_HOST && !DTB_HAS_SERVICE(host_, tensor_copy))
      throw Error(DTB_STATUS_UNSUPPORTED, strategy_ +
                                              ": this host has no tensor_copy (ABI 1.7) to fill buffers "
                                              "on a GPU with; use a newer dtbench");
  }

  // dst[dstOffset + i] = scale * src[srcOffset + i] (+ the old value when
  // `accumulate`), i < count. f32 tensors on one device; the host checks
  // the ranges of GPU tensors, this checks nothing on the host (the
  // caller's own buffers).
  void copy(const dtb_tensor_t& dst, uint64_t dstOffset, const dtb_tensor_t& src, uint64_t srcOffset,
            uint64_t count, float scale = 1.0f, bool accumulate = false) const {
    if (dst.device.type == DTB_DEVICE_HOST && src.device.type == DTB_DEVICE_HOST) {
      float* to = static_cast<float*>(dst.data) + dstOffset;
      const float* from = static_cast<const float*>(src.data) + srcOffset;
      if (scale == 1.0f && !accumulate) {
        if (count > 0 && to != from) std::memcpy(to, from, count * sizeof(float));
        return;
      }
      for (uint64_t i = 0; i < count; ++i) to[i] = accumulate ? to[i] + scale * from[i] : scale * from[i];
      return;
    }
    require(dst.device);
    check(host_->tensor_copy(host_->ctx, &dst, dstOffset, &src, srcOffset, count, scale, accumulate ? 1 : 0),
          (strategy_ + ": a tensor copy on the GPU").c_str());
  }

  // dst[dstOffset + i] = 0, i < count.
  void zero(const dtb_tensor_t& dst, uint64_t dstOffset, uint64_t count) const {
    if (dst.device.type == DTB_DEVICE_HOST) {
      float* to = static_cast<float*>(dst.data) + dstOffset;
      for (uint64_t i = 0; i < count; ++i) to[i] = 0.0f;
      return;
    }
    require(dst.device);
    check(host_->tensor_copy(host_->ctx, &dst, dstOffset, nullptr, 0, count, 0.0f, 0),
          (strategy_ + ": zeroing a tensor on the GPU").c_str());
  }

 private:
  const dtb_host_t* host_;
  std::string strategy_;
};

}  // namespace dtb

#endif  // DTBENCH_TENSOR_OPS_HPP
