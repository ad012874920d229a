// The host's tensor_copy service (dtbench.h, ABI 1.7): scaled copies,
// accumulations and zero fills of f32 tensor ranges (and, since 1.10, of f16
// and bf16 ones, and conversions between the three), on the host or queued
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

// dst = scale * src (+ dst when `accumulate`) over `count` elements, in f32
// and rounded to nearest even into dst's dtype; src's tensor null: zeros.
// DTB_STATUS_INVALID_ARGUMENT with `error` set when a tensor is not f32, f16
// or bf16, they are on two devices (but for a plain copy of one dtype
// between host memory and a GPU), a range runs past its tensor, or the
// ranges overlap without being the same; DTB_STATUS_UNSUPPORTED when the
// GPU cannot be used (no CUDA in this build, no driver).
dtb_status_t tensorCopy(const TensorRange& dst, const TensorRange& src, uint64_t count, float scale,
                        bool accumulate, std::string* error);

}  // namespace dtb::core
