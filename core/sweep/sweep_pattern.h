// What a sweep's ranks put into each collective and what must come out:
// small integers every dtype holds exactly, so a wrong element is a wrong
// collective, never rounding. Shared by the host's check and the GPU's
// (gpu_check.cu), so both count against the same expectation.
#pragma once

#include <cstdint>

#include "cuda/host_device.h"
#include "dtbench/dtbench.h"

namespace dtb::core::sweep {

enum class Collective { kAllreduce, kReduceScatter, kAllgather, kBroadcast };

// Rank r's i-th input.
DTB_HOST_DEVICE inline double pattern(int rank, uint64_t i) {
  return (rank + 1) * static_cast<double>(i % 7 + 1);
}

// Element i of the inputs of all `world` ranks reduced with `op`.
DTB_HOST_DEVICE inline double reduced(dtb_reduce_op_t op, int world, uint64_t i) {
  const double k = static_cast<double>(i % 7 + 1);
  switch (op) {
    case DTB_REDUCE_MAX:
      return k * world;
    case DTB_REDUCE_MIN:
      return k;
    case DTB_REDUCE_AVG:
      return k * (world + 1) / 2.0;
    default:
      return k * world * (world + 1) / 2.0;
  }
}

// Relative error allowed: averages are scaled by 1/world in the dtype.
DTB_HOST_DEVICE inline double tolerance(dtb_dtype_t dtype) {
  switch (dtype) {
    case DTB_DTYPE_F64:
      return 1e-12;
    case DTB_DTYPE_F32:
      return 1e-6;
    case DTB_DTYPE_F16:
      return 2e-3;
    case DTB_DTYPE_BF16:
      return 1e-2;
    default:
      return 0;
  }
}

// What element i of a collective's result must hold (before the dtype
// stores it: rounding and integer wrapping are the reader's).
struct Expectation {
  Collective collective;
  dtb_reduce_op_t reduceOp;
  int rank, world;
  uint64_t inputCount, outputCount;

  DTB_HOST_DEVICE double at(uint64_t i) const {
    switch (collective) {
      case Collective::kAllreduce:
        return reduced(reduceOp, world, i);
      case Collective::kReduceScatter:
        return reduced(reduceOp, world, static_cast<uint64_t>(rank) * outputCount + i);
      case Collective::kAllgather:
        return pattern(static_cast<int>(i / inputCount), i % inputCount);
      case Collective::kBroadcast:
        break;
    }
    return pattern(0, i);  // broadcast from rank 0
  }
};

}  // namespace dtb::core::sweep
