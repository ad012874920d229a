// Mixed precision's work on a GPU against the host's: the store's rounding,
// widening and overflow flag (train/low_precision_store.h), and the
// master-weight update's kernel against MasterWeightOptimizer's host loop,
// step by step. Written 2026-12-01, not yet run on a GPU; skipped, in one
// line, where none is usable.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "cuda/cuda_memory.h"
#include "dtbench/half.hpp"
#include "gpu_available.h"
#include "train/low_precision_store.h"
#include "train/master_weights.h"
#include "train/mixed_precision.h"
#include "train/precision.h"

namespace dtb::core {
namespace {

std::vector<float> ramp(uint64_t n) {
  std::vector<float> v(n);
  for (uint64_t i = 0; i < n; ++i) v[i] = (static_cast<float>(i) - n / 2.0f) / 13.0f;
  return v;
}

TEST(GpuMixedPrecision, TheStoreRoundsWidensAndFlagsAsTheHostDoes) {
  DTBENCH_SKIP_WITHOUT_GPU();
  const uint64_t n = 5000;
  const std::vector<float> values = ramp(n);
  for (const dtb_dtype_t dtype : {DTB_DTYPE_F16, DTB_DTYPE_BF16}) {
    auto store = makeLowPrecisionStore({DTB_DEVICE_CUDA, 0});
    GpuBuffer wide(n * sizeof(float), 0);
    void* low = store->allocate(n);
    copyToGpu(wide.data(), values.data(), n * sizeof(float), 0);
    store->clearOverflow();
    store->round(static_cast<const float*>(wide.data()), static_cast<uint16_t*>(low), n, dtype, 8.0f);
    EXPECT_FALSE(store->overflowNoted()) << dtb::dtypeName(dtype);
    std::vector<uint16_t> fromGpu(n), onHost(n);
    copyFromGpu(fromGpu.data(), low, n * sizeof(uint16_t), 0);
    roundToLowPrecision(values.data(), onHost.data(), n, dtype, 8.0f);
    EXPECT_EQ(fromGpu, onHost) << dtb::dtypeName(dtype) << ": rounded as the host rounds";
    store->widen(static_cast<const uint16_t*>(low), static_cast<float*>(wide.data()), n, dtype);
    store->settle();
    std::vector<float> back(n), expected(n);
    copyFromGpu(back.data(), wide.data(), n * sizeof(float), 0);
    widenFromLowPrecision(onHost.data(), expected.data(), n, dtype);
    EXPECT_EQ(back, expected) << dtb::dtypeName(dtype);
    if (dtype == DTB_DTYPE_F16) {
      // 192 x 512 is past fp16's 65504: the flag is set, and stays until cleared.
      store->round(static_cast<const float*>(wide.data()), static_cast<uint16_t*>(low), n, dtype, 512.0f);
      EXPECT_TRUE(store->overflowNoted());
      EXPECT_TRUE(store->overflowNoted());
      store->clearOverflow();
      EXPECT_FALSE(store->overflowNoted());
    }
    // Finite values again, then one inf put in: the check sees it.
    store->round(static_cast<const float*>(wide.data()), static_cast<uint16_t*>(low), n, dtype, 1.0f);
    store->clearOverflow();
    EXPECT_FALSE(store->overflowNoted());
    const uint16_t inf = dtype == DTB_DTYPE_F16 ? 0x7c00 : 0x7f80;
    store->setFirst(static_cast<uint16_t*>(low), inf);
    store->noteNonFinite(static_cast<const uint16_t*>(low), n, dtype);
    EXPECT_TRUE(store->overflowNoted()) << "an injected inf is seen by the check";
    store->release(low);
  }
}

TEST(GpuMixedPrecision, TheMasterWeightKernelMatchesTheHostsLoop) {
  DTBENCH_SKIP_WITHOUT_GPU();
  const uint64_t n = 3000;
  const OptimizerConfig configs[] = {
      {"sgd", 0.05, 0.9, false, 1e-3}, {"adam", 1e-2}, {"adamw", 1e-2, 0, false, 1e-2}};
  for (const Precision precision : {Precision::kFp16, Precision::kBf16}) {
    for (const OptimizerConfig& config : configs) {
      // The host's update through a mixed precision of one host parameter
      // (for its dtype, scale and settled step); the GPU's through the kernel.
      std::vector<float> modelValue(1, 0.0f), modelGrad(1, 0.0f);
      dtb_param_t one{};
      one.struct_size = sizeof one;
      one.name = "one";
      one.value = {modelValue.data(), 1, DTB_DTYPE_F32, {DTB_DEVICE_HOST, 0}};
      one.grad = {modelGrad.data(), 1, DTB_DTYPE_F32, {DTB_DEVICE_HOST, 0}};
      dtb_param_t* pointer = &one;
      MixedPrecision mixed(precision, &pointer, 1, LossScalerConfig{1024});
      Optimizer hostRule(config), gpuRule(config);
      MasterWeightOptimizer host(hostRule, mixed);
      const dtb_dtype_t dtype = precisionDtype(precision);
      const uint32_t stateFloats = host.stateFloats();
      std::vector<uint16_t> param(n), grad(n);
      roundToLowPrecision(ramp(n).data(), param.data(), n, dtype, 1.0f);
      std::vector<float> state(n * stateFloats, 0.0f);
      GpuBuffer gpuParam(n * 2, 0), gpuGrad(n * 2, 0), gpuState(n * stateFloats * 4, 0);
      copyToGpu(gpuParam.data(), param.data(), n * 2, 0);
      for (int step = 1; step <= 3; ++step) {
        std::vector<float> g = ramp(n);
        for (float& x : g) x *= static_cast<float>(step) * mixed.gradientScale() / 100.0f;
        roundToLowPrecision(g.data(), grad.data(), n, dtype, 1.0f);
        copyToGpu(gpuGrad.data(), grad.data(), n * 2, 0);
        mixed.beginStep();
        ASSERT_TRUE(host.settleStep(false));
        gpuRule.beginStep();
        host.updateLowPrecision(param.data(), grad.data(), state.data(), n, WeightDecay::kApply);
        gpuRule.updateMasterOnGpu(
            dtype, static_cast<uint16_t*>(gpuParam.data()), static_cast<const uint16_t*>(gpuGrad.data()),
            static_cast<float*>(gpuState.data()), n, WeightDecay::kApply, 1.0f / mixed.gradientScale(), 0);
        gpuRule.settle();
      }
      std::vector<float> masters(n * stateFloats);
      copyFromGpu(masters.data(), gpuState.data(), masters.size() * 4, 0);
      // Relative: the masters reach about 115, where one f32 step is 7.6e-6,
      // and fused multiply-adds on the GPU may round a step apart.
      double worst = 0;
      for (uint64_t i = 0; i < n; ++i)
        worst = std::max(worst,
                         std::abs(double(masters[i]) - state[i]) / std::max(1.0, std::abs(double(state[i]))));
      EXPECT_LT(worst, 1e-5) << precisionName(precision) << " " << config.kind << ": the f32 masters";
      std::vector<uint16_t> params(n);
      copyFromGpu(params.data(), gpuParam.data(), n * 2, 0);
      uint64_t differing = 0;
      for (uint64_t i = 0; i < n; ++i) differing += params[i] != param[i];
      // A master a rounding apart (fused multiply-adds on the GPU) may round
      // the other way; not more than a few of 3,000.
      EXPECT_LT(differing, n / 100) << precisionName(precision) << " " << config.kind;
    }
  }
}

}  // namespace
}  // namespace dtb::core
