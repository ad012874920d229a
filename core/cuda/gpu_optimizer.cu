#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cuda/cuda_memory.h"
#include "cuda/gpu_optimizer.h"

namespace dtb::core {
namespace {

void check(cudaError_t result, const char* what) {
  if (result != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(result));
}

__global__ void sgdKernel(UpdateRule r, float* param, const float* grad, float* state, uint64_t count) {
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += uint64_t{gridDim.x} * blockDim.x) {
    float g = grad[i] + r.weightDecay * param[i];
    if (r.momentum > 0) {
      state[i] = r.momentum * state[i] + g;
      g = r.nesterov ? g + r.momentum * state[i] : state[i];
    }
    param[i] -= r.lr * g;
  }
}

__global__ void adamKernel(UpdateRule r, float* param, const float* grad, float* state, uint64_t count) {
  float* m = state;
  float* v = state + count;
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += uint64_t{gridDim.x} * blockDim.x) {
    float g = grad[i];
    if (r.kind == UpdateRule::Kind::kAdamW) {
      param[i] *= 1.0f - r.lr * r.weightDecay;
    } else {
      g += r.weightDecay * param[i];
    }
    m[i] = r.beta1 * m[i] + (1.0f - r.beta1) * g;
    v[i] = r.beta2 * v[i] + (1.0f - r.beta2) * g * g;
    const float denominator = sqrtf(v[i]) / r.sqrtBiasCorrection2 + r.eps;
    param[i] -= r.stepSize * m[i] / denominator;
  }
}

}  // namespace

void gpuOptimizerUpdate(const UpdateRule& rule, float* param, const float* grad, float* state, uint64_t count,
                        int device) {
  if (count == 0) return;
  check(cudaSetDevice(device), "cudaSetDevice");
  const bool stateful = rule.kind != UpdateRule::Kind::kSgd || rule.momentum > 0;
  if (stateful && !isMemoryOfGpu(state, device))
    throw std::invalid_argument("the optimizer state is not memory of GPU " + std::to_string(device) +
                                " (allocate it with alloc on the parameter's device)");
  // An error left by earlier GPU work is not the optimizer's: said as such.
  check(cudaPeekAtLastError(), "the GPU was already in error before the optimizer ran");
  const unsigned blocks = static_cast<unsigned>(std::min<uint64_t>((count + 255) / 256, 4096));
  if (rule.kind == UpdateRule::Kind::kSgd) {
    sgdKernel<<<blocks, 256>>>(rule, param, grad, state, count);
  } else {
    adamKernel<<<blocks, 256>>>(rule, param, grad, state, count);
  }
  check(cudaGetLastError(), "the optimizer's kernel");
}

void gpuSynchronize(int device) {
  check(cudaSetDevice(device), "cudaSetDevice");
  check(cudaDeviceSynchronize(), "the GPU's work queued up to the optimizer's step");
}

}  // namespace dtb::core
