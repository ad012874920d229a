// Reduce-scatter over a ring, on Gloo's unbound buffers: n-1 steps, each
// sending one block to the right neighbour and reducing the block received
// from the left, so every rank sends (n-1)/n of the array — the bandwidth
// optimum, and the first half of a ring all-reduce. (Gloo's own
// ReduceScatterHalvingDoubling needs a power-of-two-friendly layout; this
// works for any world size and block size, 0 included.)
#pragma once

#include <gloo/context.h>

#include <chrono>
#include <cstdint>
#include <memory>

#include "common/reductions.h"

namespace dtb::backend::gloo {

// `input` holds world x count elements of `elementSize` bytes; `output`
// receives this rank's reduced block (count elements). `tag` must be the
// same on every rank for this call.
void ringReduceScatter(const std::shared_ptr<::gloo::Context>& context, const void* input, void* output,
                       size_t count, size_t elementSize, const ReduceFn& reduce, uint32_t tag,
                       std::chrono::milliseconds timeout);

}  // namespace dtb::backend::gloo
