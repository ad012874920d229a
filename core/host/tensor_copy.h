// The host's tensor_copy service (dtbench.h, ABI 1.7): scaled copies,
// accumulations and zero fills of f32 tensor ranges, on the host or queued
// on a GPU, for strategies whose buckets and buffers live where the model's
// tensors do.
#pragma once

#include <cstdint>
#include <string>

#include "dtbench/dtbench.h"

namespace dtb::core {

struct TensorRange {
  const dtb_tensor_t* tensor = nullptr;  // null: zeros (a source only)
  uint64_t offset = 0;
};

// dst = scale * src (+ dst when `accumulate`) over `count` elements; src's
// tensor null: zeros. DTB_STATUS_INVALID_ARGUMENT with `error` set when the
// tensors are not f32 on one device, a range runs past its tensor, or the
// ranges overlap without being the same; DTB_STATUS_UNSUPPORTED when the
// GPU cannot be used (no CUDA in this build, no driver).
dtb_status_t tensorCopy(const TensorRange& dst, const TensorRange& src, uint64_t count, float scale,
                        bool accumulate, std::string* error);

}  // namespace dtb::core
