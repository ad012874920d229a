// The sweep's correctness check on the GPU: the wrong elements of a result
// in GPU memory, counted where it lies (nothing copied back, however large).
#pragma once

#include <cstdint>

#include "dtbench/dtbench.h"
#include "sweep/sweep_pattern.h"

namespace dtb::core {

// Elements of `result` (GPU memory) that differ from `expected` beyond the
// dtype's tolerance. Throws GpuUnavailable in a build without CUDA.
int64_t countWrongOnGpu(const dtb_tensor_t& result, const sweep::Expectation& expected);

}  // namespace dtb::core
