// Gradient clipping's measure on a GPU: the sum of the squares of gradient
// tensors in that GPU's memory (f32, f16 or bf16), as the host's
// optim_check measures host tensors (clip_grad_norm_'s global L2 norm, its
// square). A build without CUDA has the same call; it throws GpuUnavailable.
#pragma once

#include <cstdint>

#include "dtbench/dtbench.h"

namespace dtb::core {

// Sum over every element of `count` tensors on GPU `device` of its square,
// accumulated in f64; waits for the GPU (work queued before on its legacy
// stream, the gradients' writers included, runs first). std::invalid_argument
// for a tensor of another dtype or device, std::runtime_error for a CUDA
// error, naming it.
double gpuSquaredNorm(const dtb_tensor_t* tensors, uint32_t count, int device);

}  // namespace dtb::core
