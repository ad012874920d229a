// dtbench's dtypes and reduce ops as NCCL spells them; nothing where NCCL
// has no counterpart (it has no bitwise AND).
#pragma once

#include <nccl.h>

#include <optional>

#include "dtbench/dtbench.h"

namespace dtb::backend::nccl {

inline std::optional<ncclDataType_t> ncclTypeOf(dtb_dtype_t dtype) {
  switch (dtype) {
    case DTB_DTYPE_F32:
      return ncclFloat32;
    case DTB_DTYPE_F16:
      return ncclFloat16;
    case DTB_DTYPE_BF16:
      return ncclBfloat16;
    case DTB_DTYPE_F64:
      return ncclFloat64;
    case DTB_DTYPE_I32:
      return ncclInt32;
    case DTB_DTYPE_I64:
      return ncclInt64;
    case DTB_DTYPE_U8:
      return ncclUint8;
    case DTB_DTYPE_I8:
      return ncclInt8;
  }
  return std::nullopt;
}

// AVG is NCCL's own ncclAvg (sum, then divide by the ranks), as DTB_REDUCE_AVG.
inline std::optional<ncclRedOp_t> ncclOpOf(dtb_reduce_op_t op) {
  switch (op) {
    case DTB_REDUCE_SUM:
      return ncclSum;
    case DTB_REDUCE_AVG:
      return ncclAvg;
    case DTB_REDUCE_MAX:
      return ncclMax;
    case DTB_REDUCE_MIN:
      return ncclMin;
    case DTB_REDUCE_BAND:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace dtb::backend::nccl
