#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cuda/cuda_error.h"
#include "cuda/cuda_memory.h"
#include "cuda/gpu_optimizer.h"

namespace dtb::core {
namespace {

// One element's update by the rule: `p` the parameter (or its f32 master
// copy), `g` its gradient, `state` the rule's state of `count` elements a
// slot (state[i], then state[count + i]), as Optimizer::update's loop.
__device__ void updateElement(const UpdateRule& r, float& p, float g, float* state, uint64_t i,
                              uint64_t count) {
  g *= r.clip;
  if (r.kind == UpdateRule::Kind::kSgd) {
    g += r.weightDecay * p;
    if (r.momentum > 0) {
      state[i] = r.momentum * state[i] + g;
      g = r.nesterov ? g + r.momentum * state[i] : state[i];
    }
    p -= r.lr * g;
    return;
  }
  float& m = state[i];
  float& v = state[count + i];
  if (r.kind == UpdateRule::Kind::kAdamW) {
    p *= 1.0f - r.lr * r.weightDecay;
  } else {
    g += r.weightDecay * p;
  }
  m = r.beta1 * m + (1.0f - r.beta1) * g;
  v = r.beta2 * v + (1.0f - r.beta2) * g * g;
  const float denominator = sqrtf(v) / r.sqrtBiasCorrection2 + r.eps;
  p -= r.stepSize * m / denominator;
}

__global__ void updateKernel(UpdateRule r, float* param, const float* grad, float* state, uint64_t count) {
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += uint64_t{gridDim.x} * blockDim.x) {
    float p = param[i];
    updateElement(r, p, grad[i], state, i, count);
    param[i] = p;
  }
}

__device__ float widen(__half v) { return __half2float(v); }
__device__ float widen(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ void roundInto(__half& to, float v) { to = __float2half_rn(v); }
__device__ void roundInto(__nv_bfloat16& to, float v) { to = __float2bfloat16_rn(v); }

// Mixed precision's update (train/master_weights.h): the f32 master first in
// the state, the rule's state after it.
template <typename Low>
__global__ void masterWeightKernel(UpdateRule r, Low* param, const Low* grad, float* state, uint64_t count,
                                   float unscale, bool initMaster) {
  float* master = state;
  float* rest = state + count;
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < count;
       i += uint64_t{gridDim.x} * blockDim.x) {
    if (initMaster) master[i] = widen(param[i]);
    float p = master[i];
    updateElement(r, p, widen(grad[i]) * unscale, rest, i, count);
    master[i] = p;
    roundInto(param[i], p);
  }
}

// The fused forms: one thread per element of all the table's tensors
// together, each finding its tensor in the table (consecutive elements are
// mostly in the same one, so a warp's probes agree).
static_assert(sizeof(MultiTensorTable) + sizeof(UpdateRule) + 16 <= 4096,
              "a kernel's arguments are limited to 4 KiB");

__global__ void multiUpdateKernel(MultiTensorTable t, UpdateRule r) {
  const uint64_t total = t.elements();
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < total;
       i += uint64_t{gridDim.x} * blockDim.x) {
    const uint32_t k = t.tensorOf(i);
    const uint64_t j = i - t.begin(k);
    UpdateRule rk = r;
    rk.weightDecay = t.weightDecay[k];
    float* param = static_cast<float*>(t.param[k]);
    float p = param[j];
    updateElement(rk, p, static_cast<const float*>(t.grad[k])[j], t.state[k], j, t.count(k));
    param[j] = p;
  }
}

template <typename Low>
__global__ void multiMasterWeightKernel(MultiTensorTable t, UpdateRule r, float unscale, bool initMaster) {
  const uint64_t total = t.elements();
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < total;
       i += uint64_t{gridDim.x} * blockDim.x) {
    const uint32_t k = t.tensorOf(i);
    const uint64_t j = i - t.begin(k);
    const uint64_t count = t.count(k);
    UpdateRule rk = r;
    rk.weightDecay = t.weightDecay[k];
    Low* param = static_cast<Low*>(t.param[k]);
    float* master = t.state[k];
    if (initMaster) master[j] = widen(param[j]);
    float p = master[j];
    updateElement(rk, p, widen(static_cast<const Low*>(t.grad[k])[j]) * unscale, master + count, j, count);
    master[j] = p;
    roundInto(param[j], p);
  }
}

unsigned blocksFor(uint64_t count) {
  return static_cast<unsigned>(std::min<uint64_t>((count + 255) / 256, 4096));
}

void checkState(const float* state, bool needed, int device) {
  if (needed && !isMemoryOfGpu(state, device))
    throw std::invalid_argument("the optimizer state is not memory of GPU " + std::to_string(device) +
                                " (allocate it with alloc on the parameter's device)");
  // An error left by earlier GPU work is not the optimizer's: said as such.
  checkCuda(cudaPeekAtLastError(), "the GPU was already in error before the optimizer ran");
}

}  // namespace

void gpuOptimizerUpdate(const UpdateRule& rule, float* param, const float* grad, float* state, uint64_t count,
                        int device) {
  if (count == 0) return;
  checkCuda(cudaSetDevice(device), "cudaSetDevice");
  checkState(state, rule.kind != UpdateRule::Kind::kSgd || rule.momentum > 0, device);
  updateKernel<<<blocksFor(count), 256>>>(rule, param, grad, state, count);
  checkCuda(cudaGetLastError(), "the optimizer's kernel");
}

void gpuMasterWeightUpdate(const UpdateRule& rule, dtb_dtype_t dtype, uint16_t* param, const uint16_t* grad,
                           float* state, uint64_t count, float unscale, bool initMaster, int device) {
  if (count == 0) return;
  checkCuda(cudaSetDevice(device), "cudaSetDevice");
  checkState(state, true, device);  // the master copy, at least
  if (dtype == DTB_DTYPE_F16) {
    masterWeightKernel<<<blocksFor(count), 256>>>(rule, reinterpret_cast<__half*>(param),
                                                  reinterpret_cast<const __half*>(grad), state, count,
                                                  unscale, initMaster);
  } else if (dtype == DTB_DTYPE_BF16) {
    masterWeightKernel<<<blocksFor(count), 256>>>(rule, reinterpret_cast<__nv_bfloat16*>(param),
                                                  reinterpret_cast<const __nv_bfloat16*>(grad), state, count,
                                                  unscale, initMaster);
  } else {
    throw std::invalid_argument("the master-weight update takes f16 or bf16 parameters");
  }
  checkCuda(cudaGetLastError(), "the master-weight optimizer's kernel");
}

void gpuOptimizerUpdateMany(const UpdateRule& rule, const std::vector<MultiTensorSlice>& slices, int device) {
  checkCuda(cudaSetDevice(device), "cudaSetDevice");
  // Each slice's state was checked by the host (optim_update_many's
  // checks, one pointer query a slice); only an earlier error is looked for.
  checkCuda(cudaPeekAtLastError(), "the GPU was already in error before the optimizer ran");
  for (const MultiTensorTable& table : packMultiTensorTables(slices)) {
    multiUpdateKernel<<<blocksFor(table.elements()), 256>>>(table, rule);
    checkCuda(cudaGetLastError(), "the fused optimizer's kernel");
  }
}

void gpuMasterWeightUpdateMany(const UpdateRule& rule, dtb_dtype_t dtype,
                               const std::vector<MultiTensorSlice>& slices, float unscale, bool initMaster,
                               int device) {
  if (dtype != DTB_DTYPE_F16 && dtype != DTB_DTYPE_BF16)
    throw std::invalid_argument("the master-weight update takes f16 or bf16 parameters");
  checkCuda(cudaSetDevice(device), "cudaSetDevice");
  checkCuda(cudaPeekAtLastError(), "the GPU was already in error before the optimizer ran");
  for (const MultiTensorTable& table : packMultiTensorTables(slices)) {
    if (dtype == DTB_DTYPE_F16) {
      multiMasterWeightKernel<__half><<<blocksFor(table.elements()), 256>>>(table, rule, unscale, initMaster);
    } else {
      multiMasterWeightKernel<__nv_bfloat16>
          <<<blocksFor(table.elements()), 256>>>(table, rule, unscale, initMaster);
    }
    checkCuda(cudaGetLastError(), "the fused master-weight optimizer's kernel");
  }
}

void gpuSynchronize(int device) {
  checkCuda(cudaSetDevice(device), "cudaSetDevice");
  checkCuda(cudaDeviceSynchronize(), "the GPU's work queued up to the optimizer's step");
}

}  // namespace dtb::core
