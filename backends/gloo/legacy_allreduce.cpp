#include "legacy_allreduce.h"

#include <gloo/allreduce_halving_doubling.h>
#include <gloo/allreduce_ring_chunked.h>

#include <type_traits>
#include <vector>

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

template <typename T>
void runTyped(Algorithm algorithm, const std::shared_ptr<::gloo::Context>& context, void* data,
              uint64_t count, dtb_reduce_op_t op) {
  const std::vector<T*> ptrs{static_cast<T*>(data)};
  const int elements = static_cast<int>(count);
  if (algorithm == Algorithm::kRingChunked) {
    ::gloo::AllreduceRingChunked<T>(context, ptrs, elements, reductionFunction<T>(op)).run();
  } else {
    ::gloo::AllreduceHalvingDoubling<T>(context, ptrs, elements, reductionFunction<T>(op)).run();
  }
}

}  // namespace

bool legacyReduces(dtb_dtype_t dtype, dtb_reduce_op_t op) {
  const bool integer = dtype == DTB_DTYPE_I32 || dtype == DTB_DTYPE_I64;
  if (op == DTB_REDUCE_BAND) return integer;
  const bool type = integer || dtype == DTB_DTYPE_F32 || dtype == DTB_DTYPE_F64;
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
    default:  // legacyReduces() let nothing else through
      return runTyped<int64_t>(algorithm, context, buffer.data, buffer.count, op);
  }
}

}  // namespace dtb::backend::gloo
