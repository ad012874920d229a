// The run's optimizer on GPU memory: one kernel per parameter, computing what
// Optimizer::update computes on the host from the same UpdateRule. A build
// without CUDA has the same calls; they throw GpuUnavailable.
#pragma once

#include <cstdint>

#include "cuda/update_rule.h"

namespace dtb::core {

// Queues the update of `count` elements on GPU `device` (its default
// stream); `state` as Optimizer::update's, and memory of that GPU (else
// std::invalid_argument). Returns before it ran. A CUDA error, this launch's
// or one left by earlier work, is std::runtime_error saying which.
void gpuOptimizerUpdate(const UpdateRule& rule, float* param, const float* grad, float* state, uint64_t count,
                        int device);
// Returns once everything queued on GPU `device` has run; std::runtime_error
// when some of it failed.
void gpuSynchronize(int device);

}  // namespace dtb::core
