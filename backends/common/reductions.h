// Element-wise reductions for each dtype and reduce op, shared by the CPU
// backends so they agree on what each (dtype, op) means: out[i] = op(a[i], b[i])
// (the shape Gloo's collectives take; the MPI backend wraps them in MPI_Ops
// for the dtypes MPI has no type for).
#pragma once

#include <cstddef>
#include <functional>

#include "dtbench/dtbench.h"

namespace dtb::backend {

using ReduceFn = std::function<void(void* out, const void* a, const void* b, size_t count)>;

// The function for (dtype, op), AVG reducing as SUM (the caller scales after).
// Throws dtb::Error(UNSUPPORTED), the message starting with `backend`, for a
// combination no CPU backend here does: AVG of integers, BAND of floats. f16 and bf16 add in float and round
// back per pair.
ReduceFn reduction(dtb_dtype_t dtype, dtb_reduce_op_t op, const char* backend);

// buffer[i] /= divisor, for AVG's postscale (floating dtypes only).
void scaleDown(void* buffer, dtb_dtype_t dtype, size_t count, int divisor);

}  // namespace dtb::backend
