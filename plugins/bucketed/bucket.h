// A bucket: gradients of several parameters side by side in one flat f32
// buffer, reduced together (DDP's reducer bucket).
#pragma once

#include <cstdint>
#include <vector>

#include "dtbench/host_buffer.hpp"

namespace dtb::strategy::bucketed {

struct Bucket {
  std::vector<uint32_t> params;   // parameter indices
  std::vector<uint64_t> offsets;  // element offset of each parameter
  HostBuffer<float> data;         // with gradient_as_bucket_view: the gradients themselves
  uint64_t count = 0;             // elements
  uint32_t pending = 0;           // gradients still to arrive this step
};

}  // namespace dtb::strategy::bucketed
