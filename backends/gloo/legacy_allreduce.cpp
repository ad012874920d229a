#include "legacy_allreduce.h"

#include <gloo/allreduce_halving_doubling.h>
#include <gloo/allreduce_ring_chunked.h>

#include <type_traits>
#include <vector>

#include "common/reductions.h"
#include "dtbench/plugin.hpp"

namespace dtb::backend::gloo {
namespace {

template <typename T>
void bitwiseAnd(T* x, const T* y, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] &= y[i];
}

template <typename T>
const ::gloo::ReductionFunction<T>* reductionFunction(dtb_reduce_op_t op) {
  if constexpr (std::is_integral_v<T>) {
    static const ::gloo::ReductionFunction<T> band(::gloo::CUSTOM, &bitwiseAnd<T>);
    if (op == DTB_REDUCE_BAND) return &band;
  }
  return op == DTB_REDUCE_MAX   ? ::gloo::ReductionFunction<T>::max
         : op == DTB_REDUCE_MIN ? ::gloo::ReductionFunction<T>::min
                                : ::gloo::ReductionFunction<T>::sum;
}

// A 16-bit float as the legacy classes see it: two bytes they move, and
// reduce through the loops every CPU backend shares (reductions.h: each
// pair added in float and rounded back, as on Gloo's async path). Without
// it bf16 and fp16 all-reduces ran async, where each small one waits for a
// wake-up: LeNet in bf16 at 2 ranks made 0.4-0.5 of fp32's steps a second.
template <dtb_dtype_t kDtype>
struct HalfBits {
  uint16_t bits;
};

template <dtb_dtype_t kDtype, dtb_reduce_op_t kOp>
void reduceHalf(HalfBits<kDtype>* x, const HalfBits<kDtype>* y, size_t n) {
  static const ReduceFn reduce = reduction(kDtype, kOp, "gloo");
  reduce(x, x, y, n);
}

template <dtb_dtype_t kDtype>
const ::gloo::ReductionFunction<HalfBits<kDtype>>* halfReduction(dtb_reduce_op_t op) {
  using Function = ::gloo::ReductionFunction<HalfBits<kDtype>>;
  static const Function sum(::gloo::CUSTOM, &reduceHalf<kDtype, DTB_REDUCE_SUM>);
  static const Function max(::gloo::CUSTOM, &reduceHalf<kDtype, DTB_REDUCE_MAX>);
  static const Function min(::gloo::CUSTOM, &reduceHalf<kDtype, DTB_REDUCE_MIN>);
  return op == DTB_REDUCE_MAX ? &max : op == DTB_REDUCE_MIN ? &min : &sum;
}

template <typename T>
void runTyped(Algorithm algorithm, const std::shared_ptr<::gloo::Context>& context, void* data,
              uint64_t count, const ::gloo::ReductionFunction<T>* fn) {
  const std::vector<T*> ptrs{static_cast<T*>(data)};
  const int elements = static_cast<int>(count);
  if (algorithm == Algorithm::kRingChunked) {
    ::gloo::AllreduceRingChunked<T>(context, ptrs, elements, fn).run();
  } else {
    ::gloo::AllreduceHalvingDoubling<T>(context, ptrs, elements, fn).run();
  }
}

template <typename T>
void runTyped(Algorithm algorithm, const std::shared_ptr<::gloo::Context>& context, void* data,
              uint64_t count, dtb_reduce_op_t op) {
  runTyped<T>(algorithm, context, data, count, reductionFunction<T>(op));
}

}  // namespace

bool legacyReduces(dtb_dtype_t dtype, dtb_reduce_op_t op) {
  const bool integer = dtype == DTB_DTYPE_I32 || dtype == DTB_DTYPE_I64;
  if (op == DTB_REDUCE_BAND) return integer;
  const bool type = integer || dtype == DTB_DTYPE_F32 || dtype == DTB_DTYPE_F64 || dtype == DTB_DTYPE_F16 ||
                    dtype == DTB_DTYPE_BF16;
  return type &&
         (op == DTB_REDUCE_SUM || op == DTB_REDUCE_AVG || op == DTB_REDUCE_MIN || op == DTB_REDUCE_MAX);
}

void legacyAllreduce(Algorithm algorithm, const std::shared_ptr<::gloo::Context>& context,
                     const dtb_tensor_t& buffer, dtb_reduce_op_t op) {
  switch (buffer.dtype) {
    case DTB_DTYPE_F32:
      return runTyped<float>(algorithm, context, buffer.data, buffer.count, op);
    case DTB_DTYPE_F64:
      return runTyped<double>(algorithm, context, buffer.data, buffer.count, op);
    case DTB_DTYPE_I32:
      return runTyped<int32_t>(algorithm, context, buffer.data, buffer.count, op);
    case DTB_DTYPE_F16:
      return runTyped(algorithm, context, buffer.data, buffer.count, halfReduction<DTB_DTYPE_F16>(op));
    case DTB_DTYPE_BF16:
      return runTyped(algorithm, context, buffer.data, buffer.count, halfReduction<DTB_DTYPE_BF16>(op));
    default:  // legacyReduces() let nothing else through
      return runTyped<int64_t>(algorithm, context, buffer.data, buffer.count, op);
  }
}

}  // namespace dtb::backend::gloo
