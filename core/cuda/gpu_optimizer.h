// The run's optimizer on GPU memory: one kernel per parameter, computing what
// Optimizer::update computes on the host from the same UpdateRule. A build
// without CUDA has the same calls; they throw GpuUnavailable.
#pragma once

#include <cstdint>

#include "train/optimizer.h"

namespace dtb::core {

// Queues the update of `count` elements on GPU `device` (its default
// stream); `state` as Optimizer::update's. Returns before it ran.
void gpuOptimizerUpdate(const UpdateRule& rule, float* param, const float* grad, float* state, uint64_t count,
                        int device);
// Returns once everything queued on GPU `device` has run.
void gpuSynchronize(int device);

}  // namespace dtb::core
