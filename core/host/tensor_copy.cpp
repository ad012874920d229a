#include "host/tensor_copy.h"

#include <stdexcept>

#include "cuda/cuda_memory.h"
#include "cuda/gpu_tensor_ops.h"

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
  if (t.dtype != DTB_DTYPE_F32) return std::string(name) + " is not f32";
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
  if (count == 0) return DTB_STATUS_OK;
  float* to = static_cast<float*>(dst.tensor->data) + dst.offset;
  const float* from = src.tensor ? static_cast<const float*>(src.tensor->data) + src.offset : nullptr;
  if (crossing) {
    try {
      if (device.type == DTB_DEVICE_HOST)
        copyFromGpu(to, from, count * sizeof(float), src.tensor->device.index);
      else
        copyToGpu(to, from, count * sizeof(float), device.index);
      return DTB_STATUS_OK;
    } catch (const GpuUnavailable& e) {
      if (error) *error = "tensor_copy between host memory and a GPU: " + std::string(e.what());
      return DTB_STATUS_UNSUPPORTED;
    }
  }
  if (from && from != to && from < to + count && to < from + count)
    return refuse("the ranges overlap without being the same");
  if (device.type == DTB_DEVICE_HOST) {
    for (uint64_t i = 0; i < count; ++i) {
      const float value = from ? scale * from[i] : 0.0f;
      to[i] = accumulate && from ? to[i] + value : value;
    }
    return DTB_STATUS_OK;
  }
  try {
    gpuScaledCopy(to, from, count, scale, accumulate, device.index);
    return DTB_STATUS_OK;
  } catch (const GpuUnavailable& e) {
    if (error) *error = "tensor_copy on " + describe(device) + ": " + e.what();
    return DTB_STATUS_UNSUPPORTED;
  } catch (const std::invalid_argument& e) {
    return refuse(e.what());
  }
}

}  // namespace dtb::core
