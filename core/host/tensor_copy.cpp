#include "host/tensor_copy.h"

#include <stdexcept>

#include "cuda/cuda_memory.h"
#include "cuda/gpu_tensor_ops.h"
#include "dtbench/plugin.hpp"
#include "dtbench/tensor_ops.hpp"

namespace dtb::core {
namespace {

std::string describe(const dtb_device_t& d) {
  switch (d.type) {
    case DTB_DEVICE_HOST:
      return "host memory";
    case DTB_DEVICE_CUDA:
      return "GPU " + std::to_string(d.index);
    default:
      return "device type " + std::to_string(d.type);
  }
}

// Why `range` of `count` elements cannot be used ("" when it can).
std::string rangeProblem(const char* name, const TensorRange& range, uint64_t count) {
  const dtb_tensor_t& t = *range.tensor;
  if (!dtb::isFloatingDtype(t.dtype))
    return std::string(name) + " is " + dtb::dtypeName(t.dtype) + ", not f32, f16 or bf16";
  if (range.offset > t.count || count > t.count - range.offset)
    return std::string(name) + "'s range [" + std::to_string(range.offset) + ", +" + std::to_string(count) +
           ") runs past its " + std::to_string(t.count) + " elements";
  if (count > 0 && t.data == nullptr) return std::string(name) + " has no data";
  return "";
}

bool crossesToOrFromGpu(const dtb_device_t& a, const dtb_device_t& b) {
  return (a.type == DTB_DEVICE_HOST && b.type == DTB_DEVICE_CUDA) ||
         (a.type == DTB_DEVICE_CUDA && b.type == DTB_DEVICE_HOST);
}

}  // namespace

dtb_status_t tensorCopy(const TensorRange& dst, const TensorRange& src, uint64_t count, float scale,
                        bool accumulate, std::string* error) {
  const auto refuse = [&](const std::string& why) {
    if (error) *error = "tensor_copy: " + why;
    return DTB_STATUS_INVALID_ARGUMENT;
  };
  if (dst.tensor == nullptr) return refuse("no destination tensor");
  std::string problem = rangeProblem("dst", dst, count);
  if (problem.empty() && src.tensor) problem = rangeProblem("src", src, count);
  if (!problem.empty()) return refuse(problem);
  const dtb_device_t& device = dst.tensor->device;
  if (device.type != DTB_DEVICE_HOST && device.type != DTB_DEVICE_CUDA)
    return refuse("dst is in " + describe(device) + ", neither host memory nor a GPU");
  const bool crossing =
      src.tensor && (src.tensor->device.type != device.type || src.tensor->device.index != device.index);
  if (crossing && !crossesToOrFromGpu(device, src.tensor->device))
    return refuse("dst is in " + describe(device) + " and src in " + describe(src.tensor->device) +
                  ": both must be on one device, or one in host memory and the other on a GPU");
  if (crossing && (scale != 1.0f || accumulate))
    return refuse("between " + describe(src.tensor->device) + " and " + describe(device) +
                  " only a plain copy is done (scale 1, no accumulate)");
  const dtb_dtype_t toType = dst.tensor->dtype, fromType = src.tensor ? src.tensor->dtype : toType;
  if (crossing && fromType != toType)
    return refuse("between " + describe(src.tensor->device) + " and " + describe(device) +
                  " only a plain copy is done (one dtype; this is " + dtb::dtypeName(fromType) + " to " +
                  dtb::dtypeName(toType) + ")");
  if (count == 0) return DTB_STATUS_OK;
  char* to = static_cast<char*>(dst.tensor->data) + dst.offset * dtb::dtypeSize(toType);
  const char* from = src.tensor
                         ? static_cast<const char*>(src.tensor->data) + src.offset * dtb::dtypeSize(fromType)
                         : nullptr;
  if (crossing) {
    try {
      if (device.type == DTB_DEVICE_HOST)
        copyFromGpu(to, from, count * dtb::dtypeSize(toType), src.tensor->device.index);
      else
        copyToGpu(to, from, count * dtb::dtypeSize(toType), device.index);
      return DTB_STATUS_OK;
    } catch (const GpuUnavailable& e) {
      if (error) *error = "tensor_copy between host memory and a GPU: " + std::string(e.what());
      return DTB_STATUS_UNSUPPORTED;
    }
  }
  const uint64_t toBytes = count * dtb::dtypeSize(toType), fromBytes = count * dtb::dtypeSize(fromType);
  const bool sameRange = from == to && fromType == toType;
  if (from && !sameRange && from < to + toBytes && to < from + fromBytes)
    return refuse("the ranges overlap without being the same");
  if (device.type == DTB_DEVICE_HOST && toType == DTB_DTYPE_F32 && fromType == DTB_DTYPE_F32) {
    auto* t = reinterpret_cast<float*>(to);
    const auto* f = reinterpret_cast<const float*>(from);
    for (uint64_t i = 0; i < count; ++i) {
      const float value = f ? scale * f[i] : 0.0f;
      t[i] = accumulate && f ? t[i] + value : value;
    }
    return DTB_STATUS_OK;
  }
  if (device.type == DTB_DEVICE_HOST) {  // bf16, f16, or a conversion
    for (uint64_t i = 0; i < count; ++i) {
      const float value = from ? scale * dtb::loadAsFloat(from, fromType, i) : 0.0f;
      dtb::storeRounded(to, toType, i, accumulate && from ? dtb::loadAsFloat(to, toType, i) + value : value);
    }
    return DTB_STATUS_OK;
  }
  try {
    if (toType == DTB_DTYPE_F32 && fromType == DTB_DTYPE_F32)
      gpuScaledCopy(reinterpret_cast<float*>(to), reinterpret_cast<const float*>(from), count, scale,
                    accumulate, device.index);
    else
      gpuTypedCopy(to, toType, from, fromType, count, scale, accumulate, device.index);
    return DTB_STATUS_OK;
  } catch (const GpuUnavailable& e) {
    if (error) *error = "tensor_copy on " + describe(device) + ": " + e.what();
    return DTB_STATUS_UNSUPPORTED;
  } catch (const std::invalid_argument& e) {
    return refuse(e.what());
  }
}

}  // namespace dtb::core
