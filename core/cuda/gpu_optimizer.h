// The run's optimizer on GPU memory: one kernel per parameter, or one per
// table of up to 64 parameters (fused: multi_tensor_table.h), computing what
// Optimizer::update computes on the host from the same UpdateRule. A build
// without CUDA has the same calls; they throw GpuUnavailable.
#pragma once

#include <cstdint>
#include <vector>

#include "cuda/multi_tensor_table.h"
#include "cuda/update_rule.h"
#include "dtbench/dtbench.h"

namespace dtb::core {

// Queues the update of `count` elements on GPU `device` (its default
// stream); `state` as Optimizer::update's, and memory of that GPU (else
// std::invalid_argument). Returns before it ran. A CUDA error, this launch's
// or one left by earlier work, is std::runtime_error saying which.
void gpuOptimizerUpdate(const UpdateRule& rule, float* param, const float* grad, float* state, uint64_t count,
                        int device);
// Mixed precision's update on GPU `device` (train/master_weights.h):
// `param` and `grad` are `dtype` (f16 or bf16) arrays; `state` begins with
// the f32 master copy of the parameters and holds the rule's state after
// it. Per element: master = param widened (when `initMaster`: the first
// applied step), the rule applied to master with the gradient widened and
// times `unscale`, param rounded from master. Queued, as gpuOptimizerUpdate.
void gpuMasterWeightUpdate(const UpdateRule& rule, dtb_dtype_t dtype, uint16_t* param, const uint16_t* grad,
                           float* state, uint64_t count, float unscale, bool initMaster, int device);
// The fused forms: every slice updated as by the calls above, `rule`'s
// weight decay being each slice's own, in one kernel per table of
// packMultiTensorTables'. The caller has checked that each slice's state is
// memory of `device` (the host's optim_update_many does, once a slice: a
// check here too would double what fusing saves). Queued, as above.
void gpuOptimizerUpdateMany(const UpdateRule& rule, const std::vector<MultiTensorSlice>& slices, int device);
void gpuMasterWeightUpdateMany(const UpdateRule& rule, dtb_dtype_t dtype,
                               const std::vector<MultiTensorSlice>& slices, float unscale, bool initMaster,
                               int device);
// Returns once everything queued on GPU `device` has run; std::runtime_error
// when some of it failed.
void gpuSynchronize(int device);

}  // namespace dtb::core
