// The fused optimizer (fused_optimizer = true: multi-tensor kernels, up to
// 64 parameters each) against a kernel per parameter, on the same slices of
// GPU memory: 140 parameters of odd sizes (two full tables and part of a
// third), one of them empty, every other one without weight decay; f32
// under every rule, and the master-weight update in fp16 and bf16; and the
// host's refusal of a slice whose state is not the GPU's. Written
// 2026-12-02, not yet run on a GPU; skipped, in one line, where none is
// usable.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/cuda_memory.h"
#include "cuda/gpu_optimizer.h"
#include "dtbench/plugin.hpp"
#include "gpu_available.h"
#include "host/host_services.h"
#include "train/optimizer.h"
#include "train/precision.h"

namespace dtb::core {
namespace {

// Where each of 140 parameters lies in one block: sizes 0 (the fourth) to a
// few thousand, in an order that puts table boundaries mid-way.
struct Carving {
  std::vector<uint64_t> offsets, counts;
  uint64_t total = 0;
};

Carving carve() {
  Carving c;
  std::mt19937 rng(7);
  for (int i = 0; i < 140; ++i) {
    const uint64_t n = i == 3 ? 0 : 1 + rng() % (i % 7 == 0 ? 4000 : 300);
    c.offsets.push_back(c.total);
    c.counts.push_back(n);
    c.total += n;
  }
  return c;
}

std::vector<float> normal(uint64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d;
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// The slices of `c` over `param`, `grad` (elements of `bytes` bytes) and
// `state` (`floats` state floats per element).
std::vector<GpuUpdateSlice> slicesOf(const Carving& c, void* param, const void* grad, void* state,
                                     size_t bytes, uint32_t floats) {
  std::vector<GpuUpdateSlice> slices;
  for (size_t i = 0; i < c.counts.size(); ++i) {
    slices.push_back({static_cast<char*>(param) + c.offsets[i] * bytes,
                      static_cast<const char*>(grad) + c.offsets[i] * bytes,
                      static_cast<float*>(state) + c.offsets[i] * floats, c.counts[i],
                      i % 2 ? WeightDecay::kSkip : WeightDecay::kApply});
  }
  return slices;
}

double worstRelative(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::abs(double(a[i]) - b[i]) / std::max(1.0, std::abs(double(b[i]))));
  return worst;
}

TEST(GpuFusedOptimizer, F32UpdatesMatchAKernelPerParameter) {
  DTBENCH_SKIP_WITHOUT_GPU();
  const Carving c = carve();
  OptimizerConfig configs[] = {{"sgd", 0.1, 0, false, 1e-2},
                               {"sgd", 0.1, 0.9, true, 1e-2},
                               {"adam", 1e-3, 0, false, 1e-2},
                               {"adamw", 1e-3, 0, false, 1e-2}};
  for (OptimizerConfig& config : configs) {
    config.fused = true;
    Optimizer fused(config);
    config.fused = false;
    Optimizer perParameter(config);
    const uint32_t floats = fused.stateFloats();
    const std::vector<float> start = normal(c.total, 1);
    GpuBuffer params[2] = {GpuBuffer(c.total * 4, 0), GpuBuffer(c.total * 4, 0)};
    GpuBuffer states[2] = {GpuBuffer(std::max<uint64_t>(c.total * floats, 1) * 4, 0),
                           GpuBuffer(std::max<uint64_t>(c.total * floats, 1) * 4, 0)};
    const GpuBuffer grad(c.total * 4, 0);
    for (const GpuBuffer& p : params) copyToGpu(p.data(), start.data(), c.total * 4, 0);
    for (int step = 1; step <= 3; ++step) {
      copyToGpu(grad.data(), normal(c.total, 10 + step).data(), c.total * 4, 0);
      Optimizer* optimizers[2] = {&fused, &perParameter};
      for (int k = 0; k < 2; ++k) {
        optimizers[k]->beginStep();
        optimizers[k]->updateManyOnGpu(
            slicesOf(c, params[k].data(), grad.data(), states[k].data(), 4, floats), 0);
        optimizers[k]->settle();
      }
    }
    std::vector<float> got[2] = {std::vector<float>(c.total), std::vector<float>(c.total)};
    for (int k = 0; k < 2; ++k) copyFromGpu(got[k].data(), params[k].data(), c.total * 4, 0);
    EXPECT_LT(worstRelative(got[0], got[1]), 1e-6) << config.kind << " nesterov " << config.nesterov;
    EXPECT_GT(worstRelative(got[1], start), 1e-4) << config.kind << ": the parameters did not move";
  }
}

TEST(GpuFusedOptimizer, MasterWeightUpdatesMatchAKernelPerParameter) {
  DTBENCH_SKIP_WITHOUT_GPU();
  const Carving c = carve();
  for (const Precision precision : {Precision::kFp16, Precision::kBf16}) {
    const dtb_dtype_t dtype = precisionDtype(precision);
    OptimizerConfig config{"adamw", 1e-2, 0, false, 1e-2};
    config.fused = true;
    Optimizer fused(config);
    config.fused = false;
    Optimizer perParameter(config);
    const uint32_t floats = 1 + fused.stateFloats();  // the master first
    std::vector<uint16_t> start(c.total), grad(c.total);
    roundToLowPrecision(normal(c.total, 2).data(), start.data(), c.total, dtype, 1.0f);
    GpuBuffer params[2] = {GpuBuffer(c.total * 2, 0), GpuBuffer(c.total * 2, 0)};
    GpuBuffer states[2] = {GpuBuffer(c.total * floats * 4, 0), GpuBuffer(c.total * floats * 4, 0)};
    const GpuBuffer gpuGrad(c.total * 2, 0);
    for (const GpuBuffer& p : params) copyToGpu(p.data(), start.data(), c.total * 2, 0);
    for (int step = 1; step <= 3; ++step) {
      roundToLowPrecision(normal(c.total, 20 + step).data(), grad.data(), c.total, dtype, 64.0f);
      copyToGpu(gpuGrad.data(), grad.data(), c.total * 2, 0);
      fused.beginStep();
      perParameter.beginStep();
      fused.updateMasterManyOnGpu(
          dtype, slicesOf(c, params[0].data(), gpuGrad.data(), states[0].data(), 2, floats), 1.0f / 64, 0);
      perParameter.updateMasterManyOnGpu(
          dtype, slicesOf(c, params[1].data(), gpuGrad.data(), states[1].data(), 2, floats), 1.0f / 64, 0);
      fused.settle();
      perParameter.settle();
    }
    std::vector<float> state[2] = {std::vector<float>(c.total * floats),
                                   std::vector<float>(c.total * floats)};
    std::vector<uint16_t> got[2] = {std::vector<uint16_t>(c.total), std::vector<uint16_t>(c.total)};
    for (int k = 0; k < 2; ++k) {
      copyFromGpu(state[k].data(), states[k].data(), state[k].size() * 4, 0);
      copyFromGpu(got[k].data(), params[k].data(), c.total * 2, 0);
    }
    EXPECT_LT(worstRelative(state[0], state[1]), 1e-6) << precisionName(precision) << ": masters and moments";
    uint64_t differing = 0;
    for (uint64_t i = 0; i < c.total; ++i) differing += got[0][i] != got[1][i];
    EXPECT_LT(differing, c.total / 100) << precisionName(precision) << ": the rounded parameters";
    EXPECT_NE(got[0], start) << precisionName(precision) << ": the parameters did not move";
  }
}

// Nothing is queued when one slice's state is not the GPU's (a kernel given
// host memory would fault and break the CUDA context): the host checks
// every slice first, and names the bad one by its index in the call.
TEST(GpuFusedOptimizer, ASlicesStateOffTheGpuIsRefusedBeforeAnythingRuns) {
  DTBENCH_SKIP_WITHOUT_GPU();
  Optimizer momentum({"sgd", 0.1, 0.9});
  HostServices services("strategy/test", {});
  services.bind(nullptr, &momentum);
  const dtb_host_t* host = services.table();
  const GpuBuffer param(128 * 4, 0), grad(128 * 4, 0), state(64 * 4, 0);
  const std::vector<float> ones(128, 1.0f);
  copyToGpu(param.data(), ones.data(), 128 * 4, 0);
  copyToGpu(grad.data(), ones.data(), 128 * 4, 0);
  std::vector<float> hostState(64, 0.0f);
  auto gpuTensor = [](void* data) {
    dtb_tensor_t t = dtb::hostTensor(static_cast<float*>(data), 64, DTB_DTYPE_F32);
    t.device = {DTB_DEVICE_CUDA, 0};
    return t;
  };
  dtb_tensor_t values[] = {gpuTensor(param.data()), gpuTensor(static_cast<float*>(param.data()) + 64)};
  const dtb_tensor_t grads[] = {gpuTensor(grad.data()), gpuTensor(static_cast<float*>(grad.data()) + 64)};
  float* const states[] = {static_cast<float*>(state.data()), hostState.data()};
  const uint32_t indices[] = {UINT32_MAX, UINT32_MAX};
  momentum.beginStep();
  EXPECT_EQ(host->optim_update_many(host->ctx, values, grads, states, indices, 2),
            DTB_STATUS_INVALID_ARGUMENT);
  const std::string error = services.takeError().value_or("");
  EXPECT_NE(error.find("optim_update_many: slice 1: the optimizer state is not memory of GPU 0"),
            std::string::npos)
      << error;
  momentum.settle();
  std::vector<float> after(128);
  copyFromGpu(after.data(), param.data(), 128 * 4, 0);
  EXPECT_EQ(after, ones) << "slice 0 was updated although slice 1 was refused";
}

}  // namespace
}  // namespace dtb::core
