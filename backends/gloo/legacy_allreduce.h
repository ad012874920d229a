// Gloo's legacy all-reduce algorithm classes (AllreduceHalvingDoubling,
// AllreduceRingChunked): the ones that also run on pairs in sync mode, where
// the thread running the collective reads its own sockets. Each call builds
// its algorithm on the caller's buffer (keeping them per shape, as Caffe2
// did, saved no measurable time or CPU here: docs/backends.md).
#pragma once

#include <gloo/context.h>

#include <memory>

#include "dtbench/dtbench.h"
#include "gloo_options.h"

namespace dtb::backend::gloo {

// Whether the legacy classes reduce `dtype` with `op`: floats (16, 32 and
// 64-bit) and 32/64-bit integers with sum, avg (a sum, scaled after), min
// or max, and the integers with a bitwise AND (fusion's cache bits, as
// Horovod's Gloo controller ANDs them).
bool legacyReduces(dtb_dtype_t dtype, dtb_reduce_op_t op);

// All-reduces `buffer` in place with `algorithm` (ring_chunked, or
// halving-doubling for any other), summing for avg; throws Gloo's errors.
void legacyAllreduce(Algorithm algorithm, const std::shared_ptr<::gloo::Context>& context,
                     const dtb_tensor_t& buffer, dtb_reduce_op_t op);

}  // namespace dtb::backend::gloo
