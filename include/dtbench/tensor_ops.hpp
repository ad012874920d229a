// tensor_ops.hpp — copies between tensor ranges wherever the tensors live:
// loops in host memory, the host's tensor_copy service (ABI 1.7) on a GPU.
// What a strategy fills buckets and fusion buffers with and copies results
// back with, written once for both devices. f32, bf16 and f16 (a
// mixed-precision run's, a compression hook's) and conversions between
// them, scaled and summed in f32 and rounded to nearest even, as PyTorch's
// bf16 tensor ops; on a GPU bf16 and f16 need a host of ABI 1.10 or later.
// Optional C++ helper; header-only.
//
//   dtb::TensorOps ops(host, "mine");
//   ops.copy(bucketTensor, offset, param->grad, 0, param->grad.count, 1.0f / world);  // into a bucket
//   ops.copy(param->grad, 0, bucketTensor, offset, param->grad.count);               // and back
#ifndef DTBENCH_TENSOR_OPS_HPP
#define DTBENCH_TENSOR_OPS_HPP

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <utility>

#include "dtbench/half.hpp"
#include "dtbench/plugin.hpp"

namespace dtb {

// A flat view of `count` elements of `dtype` at `data` on `device`.
inline dtb_tensor_t flatTensor(void* data, uint64_t count, dtb_device_t device,
                               dtb_dtype_t dtype = DTB_DTYPE_F32) noexcept {
  dtb_tensor_t t = hostTensor(data, count, dtype);
  t.device = device;
  return t;
}

// The address of element `i` of a flat array of `dtype` at `base`.
inline void* elementAt(void* base, uint64_t i, dtb_dtype_t dtype) noexcept {
  return static_cast<char*>(base) + i * dtypeSize(dtype);
}

// The dtypes scaled, summed and converted in f32: f32, bf16, f16.
constexpr bool isFloatingDtype(dtb_dtype_t dtype) noexcept {
  return dtype == DTB_DTYPE_F32 || dtype == DTB_DTYPE_BF16 || dtype == DTB_DTYPE_F16;
}

// Element `i` of a flat f32, bf16 or f16 array at `base`, in f32 (exactly).
inline float loadAsFloat(const void* base, dtb_dtype_t dtype, uint64_t i) noexcept {
  if (dtype == DTB_DTYPE_F32) return static_cast<const float*>(base)[i];
  const uint16_t bits = static_cast<const uint16_t*>(base)[i];
  return dtype == DTB_DTYPE_F16 ? halfToFloat(bits) : bfloat16ToFloat(bits);
}

// `value` stored as element `i` of such an array, rounded to nearest even.
inline void storeRounded(void* base, dtb_dtype_t dtype, uint64_t i, float value) noexcept {
  if (dtype == DTB_DTYPE_F32)
    static_cast<float*>(base)[i] = value;
  else
    static_cast<uint16_t*>(base)[i] = dtype == DTB_DTYPE_F16 ? floatToHalf(value) : floatToBfloat16(value);
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
  // `accumulate`), i < count, converted to dst's dtype. Tensors on one
  // device; the host checks the ranges of GPU tensors, this checks nothing
  // on the host (the caller's own buffers) but the dtypes.
  void copy(const dtb_tensor_t& dst, uint64_t dstOffset, const dtb_tensor_t& src, uint64_t srcOffset,
            uint64_t count, float scale = 1.0f, bool accumulate = false) const {
    if (dst.device.type == DTB_DEVICE_HOST && src.device.type == DTB_DEVICE_HOST) {
      void* to = elementAt(dst.data, dstOffset, dst.dtype);
      const void* from = elementAt(src.data, srcOffset, src.dtype);
      if (dst.dtype == src.dtype && scale == 1.0f && !accumulate) {  // any dtype
        if (count > 0 && to != from) std::memcpy(to, from, count * dtypeSize(dst.dtype));
        return;
      }
      for (dtb_dtype_t dtype : {dst.dtype, src.dtype}) {
        if (!isFloatingDtype(dtype))
          throw Error(DTB_STATUS_INVALID_ARGUMENT, strategy_ + ": scaled or converting copies of " +
                                                       dtypeName(dtype) + " tensors (f32, bf16, f16 only)");
      }
      if (dst.dtype != src.dtype) {  // a conversion (a compression hook's)
        for (uint64_t i = 0; i < count; ++i) {
          const float v = scale * loadAsFloat(from, src.dtype, i);
          storeRounded(to, dst.dtype, i, accumulate ? loadAsFloat(to, dst.dtype, i) + v : v);
        }
        return;
      }
      // One dtype: loops of their own, which the compiler vectorises (what
      // every bucket and fusion buffer is filled with on the host).
      switch (dst.dtype) {
        case DTB_DTYPE_F32:
          combine(
              static_cast<float*>(to), static_cast<const float*>(from), count, scale, accumulate,
              [](float v) { return v; }, [](float v) { return v; });
          return;
        case DTB_DTYPE_BF16:
          combine(static_cast<uint16_t*>(to), static_cast<const uint16_t*>(from), count, scale, accumulate,
                  bfloat16ToFloat, floatToBfloat16);
          return;
        default:
          combine(static_cast<uint16_t*>(to), static_cast<const uint16_t*>(from), count, scale, accumulate,
                  halfToFloat, floatToHalf);
          return;
      }
    }
    require(dst.device.type != DTB_DEVICE_HOST ? dst.device : src.device);
    requireHalfPrecisionCopies(dst.dtype);
    requireHalfPrecisionCopies(src.dtype);
    check(host_->tensor_copy(host_->ctx, &dst, dstOffset, &src, srcOffset, count, scale, accumulate ? 1 : 0),
          (strategy_ + ": a tensor copy on the GPU").c_str());
  }

  // dst[dstOffset + i] = 0, i < count.
  void zero(const dtb_tensor_t& dst, uint64_t dstOffset, uint64_t count) const {
    if (dst.device.type == DTB_DEVICE_HOST) {
      // All-zero bits are 0 in f32, bf16 and f16 alike.
      if (count > 0) std::memset(elementAt(dst.data, dstOffset, dst.dtype), 0, count * dtypeSize(dst.dtype));
      return;
    }
    require(dst.device);
    requireHalfPrecisionCopies(dst.dtype);
    check(host_->tensor_copy(host_->ctx, &dst, dstOffset, nullptr, 0, count, 0.0f, 0),
          (strategy_ + ": zeroing a tensor on the GPU").c_str());
  }

 private:
  // The host copies bf16 and f16 tensors on a GPU since ABI 1.10.
  void requireHalfPrecisionCopies(dtb_dtype_t dtype) const {
    if (dtype != DTB_DTYPE_F32 && host_->abi_version < DTB_ABI_MAKE_VERSION(1, 10))
      throw Error(DTB_STATUS_UNSUPPORTED, strategy_ +
                                              ": this host copies f32 tensors only on a GPU (bf16 and "
                                              "f16 since ABI 1.10); use a newer dtbench");
  }
  // to[i] = scale * from[i] (+ to[i]), computed in f32.
  template <typename T, typename Widen, typename Round>
  static void combine(T* to, const T* from, uint64_t count, float scale, bool accumulate, Widen widen,
                      Round round) {
    for (uint64_t i = 0; i < count; ++i) {
      const float v = scale * widen(from[i]);
      to[i] = round(accumulate ? widen(to[i]) + v : v);
    }
  }
  const dtb_host_t* host_;
  std::string strategy_;
};

}  // namespace dtb

#endif  // DTBENCH_TENSOR_OPS_HPP
