// A bucket: gradients of several parameters side by side in one flat
// buffer of their dtype (f32, or bf16 / f16 in mixed precision), reduced
// together (DDP's reducer bucket).
#pragma once

#include <cstdint>
#include <vector>

#include "dtbench/typed_buffer.hpp"

namespace dtb::strategy::bucketed {

struct Bucket {
  std::vector<uint32_t> params;   // parameter indices
  std::vector<uint64_t> offsets;  // element offset of each parameter
  TypedBuffer data;               // with gradient_as_bucket_view: the gradients themselves
  uint64_t count = 0;             // elements
  uint32_t pending = 0;           // gradients still to arrive this step

  // The data as f32 values: for the hooks that compute on f32 buckets only
  // (makeCommHook refuses them others).
  float* f32() const { return static_cast<float*>(data.data()); }
};

}  // namespace dtb::strategy::bucketed
