#include "reductions.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "dtbench/half.hpp"
#include "dtbench/plugin.hpp"

namespace dtb::backend {
namespace {

template <typename T, typename Op>
ReduceFn make(Op op) {
  return [op](void* out, const void* a, const void* b, size_t count) {
    auto* o = static_cast<T*>(out);
    const auto* x = static_cast<const T*>(a);
    const auto* y = static_cast<const T*>(b);
    for (size_t i = 0; i < count; ++i) o[i] = op(x[i], y[i]);
  };
}

template <typename T>
ReduceFn forType(dtb_reduce_op_t op, dtb_dtype_t dtype, const char* backend) {
  switch (op) {
    case DTB_REDUCE_SUM:
    case DTB_REDUCE_AVG:
      if (op == DTB_REDUCE_AVG && !std::is_floating_point_v<T>) break;
      return make<T>([](T x, T y) { return static_cast<T>(x + y); });
    case DTB_REDUCE_MAX:
      return make<T>([](T x, T y) { return std::max(x, y); });
    case DTB_REDUCE_MIN:
      return make<T>([](T x, T y) { return std::min(x, y); });
    case DTB_REDUCE_BAND:
      if constexpr (std::is_integral_v<T>) return make<T>([](T x, T y) { return static_cast<T>(x & y); });
      break;
  }
  throw Error(DTB_STATUS_UNSUPPORTED, std::string(backend) + ": reduce op " + std::to_string(op) +
                                          " is not available for " + dtypeName(dtype));
}

// Half precision: each pair added in float and rounded back, as Gloo's own
// float16 type and PyTorch's CPU kernels do.
template <float (*ToFloat)(uint16_t), uint16_t (*FromFloat)(float)>
ReduceFn forHalf(dtb_reduce_op_t op, dtb_dtype_t dtype, const char* backend) {
  const auto apply = [](auto f) {
    return make<uint16_t>([f](uint16_t x, uint16_t y) { return FromFloat(f(ToFloat(x), ToFloat(y))); });
  };
  switch (op) {
    case DTB_REDUCE_SUM:
    case DTB_REDUCE_AVG:
      return apply([](float x, float y) { return x + y; });
    case DTB_REDUCE_MAX:
      return apply([](float x, float y) { return std::max(x, y); });
    case DTB_REDUCE_MIN:
      return apply([](float x, float y) { return std::min(x, y); });
    case DTB_REDUCE_BAND:
      break;
  }
  throw Error(DTB_STATUS_UNSUPPORTED, std::string(backend) + ": reduce op " + std::to_string(op) +
                                          " is not available for " + dtypeName(dtype));
}

}  // namespace

ReduceFn reduction(dtb_dtype_t dtype, dtb_reduce_op_t op, const char* backend) {
  switch (dtype) {
    case DTB_DTYPE_F32:
      return forType<float>(op, dtype, backend);
    case DTB_DTYPE_F64:
      return forType<double>(op, dtype, backend);
    case DTB_DTYPE_I32:
      return forType<int32_t>(op, dtype, backend);
    case DTB_DTYPE_I64:
      return forType<int64_t>(op, dtype, backend);
    case DTB_DTYPE_U8:
      return forType<uint8_t>(op, dtype, backend);
    case DTB_DTYPE_I8:
      return forType<int8_t>(op, dtype, backend);
    case DTB_DTYPE_F16:
      return forHalf<halfToFloat, floatToHalf>(op, dtype, backend);
    case DTB_DTYPE_BF16:
      return forHalf<bfloat16ToFloat, floatToBfloat16>(op, dtype, backend);
  }
  throw Error(DTB_STATUS_UNSUPPORTED, std::string(backend) + ": dtype " + dtypeName(dtype) +
                                          " is not supported for reductions on the CPU");
}

void scaleDown(void* buffer, dtb_dtype_t dtype, size_t count, int divisor) {
  if (divisor == 1) return;  // one rank's average is its sum (and rounding a half type again costs a pass)
  if (dtype == DTB_DTYPE_F32) {
    auto* b = static_cast<float*>(buffer);
    const float scale = 1.0f / static_cast<float>(divisor);
    for (size_t i = 0; i < count; ++i) b[i] *= scale;
  } else if (dtype == DTB_DTYPE_F64) {
    auto* b = static_cast<double*>(buffer);
    const double scale = 1.0 / divisor;
    for (size_t i = 0; i < count; ++i) b[i] *= scale;
  } else if (dtype == DTB_DTYPE_F16 || dtype == DTB_DTYPE_BF16) {
    auto* b = static_cast<uint16_t*>(buffer);
    const bool half = dtype == DTB_DTYPE_F16;
    for (size_t i = 0; i < count; ++i) {
      const float v = (half ? halfToFloat(b[i]) : bfloat16ToFloat(b[i])) / static_cast<float>(divisor);
      b[i] = half ? floatToHalf(v) : floatToBfloat16(v);
    }
  }
}

}  // namespace dtb::backend
