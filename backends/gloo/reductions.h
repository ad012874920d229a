// Element-wise reductions for each dtype and reduce op, in the shape Gloo's
// collectives take them: out[i] = op(a[i], b[i]).
#pragma once

#include <cstddef>
#include <functional>

#include "dtbench/dtbench.h"

namespace dtb::backend::gloo {

using ReduceFn = std::function<void(void* out, const void* a, const void* b, size_t count)>;

// The function for (dtype, op), AVG reducing as SUM (the caller scales after).
// Throws dtb::Error(UNSUPPORTED) for a combination Gloo on the CPU cannot do
// here: AVG of integers, BAND of floats. f16 and bf16 add in float and round
// back per pair.
ReduceFn reduction(dtb_dtype_t dtype, dtb_reduce_op_t op);

// buffer[i] /= divisor, for AVG's postscale (floating dtypes only).
void scaleDown(void* buffer, dtb_dtype_t dtype, size_t count, int divisor);

}  // namespace dtb::backend::gloo
