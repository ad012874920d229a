// Gradient clipping on a GPU: the global norm's squares summed by a kernel
// (f32, f16, bf16) against the host's f64 sum, and a clipped step of the
// GPU's kernels, one per parameter and fused, against the host's loop.
// Written 2026-12-02, not yet run on a GPU; skipped, in one line, where none
// is usable.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <deque>
#include <vector>

#include "cuda/cuda_memory.h"
#include "cuda/gpu_norm.h"
#include "dtbench/plugin.hpp"
#include "gpu_available.h"
#include "train/optimizer.h"
#include "train/precision.h"

namespace dtb::core {
namespace {

std::vector<float> wave(uint64_t n, float scale) {
  std::vector<float> v(n);
  for (uint64_t i = 0; i < n; ++i) v[i] = scale * std::sin(0.37f * static_cast<float>(i));
  return v;
}

dtb_tensor_t onGpu(const GpuBuffer& b, uint64_t count, dtb_dtype_t dtype) {
  dtb_tensor_t t{};
  t.data = b.data();
  t.count = count;
  t.dtype = dtype;
  t.device = {DTB_DEVICE_CUDA, 0};
  return t;
}

TEST(GpuClipping, TheNormsSquaresMatchTheHostsSum) {
  DTBENCH_SKIP_WITHOUT_GPU();
  // Sizes that leave blocks part full, and a large one many blocks share.
  const std::vector<uint64_t> sizes = {1, 255, 257, 100000, 0};
  for (const dtb_dtype_t dtype : {DTB_DTYPE_F32, DTB_DTYPE_F16, DTB_DTYPE_BF16}) {
    std::deque<GpuBuffer> buffers;  // not movable: a deque grows without moving them
    std::vector<dtb_tensor_t> tensors;
    double expected = 0;
    for (size_t k = 0; k < sizes.size(); ++k) {
      std::vector<float> values = wave(sizes[k], 1.0f + static_cast<float>(k));
      buffers.emplace_back(std::max<uint64_t>(sizes[k], 1) * 4, 0);
      if (dtype == DTB_DTYPE_F32) {
        copyToGpu(buffers.back().data(), values.data(), sizes[k] * 4, 0);
      } else {
        std::vector<uint16_t> low(sizes[k]);
        roundToLowPrecision(values.data(), low.data(), sizes[k], dtype, 1.0f);
        widenFromLowPrecision(low.data(), values.data(), sizes[k], dtype);  // what the GPU holds
        copyToGpu(buffers.back().data(), low.data(), sizes[k] * 2, 0);
      }
      for (float v : values) expected += static_cast<double>(v) * v;
      tensors.push_back(onGpu(buffers.back(), sizes[k], dtype));
    }
    const double got = gpuSquaredNorm(tensors.data(), static_cast<uint32_t>(tensors.size()), 0);
    EXPECT_NEAR(got, expected, 1e-9 * expected) << dtypeName(dtype);
  }
}

TEST(GpuClipping, AClippedStepMatchesTheHostsOneAndFusedAlike) {
  DTBENCH_SKIP_WITHOUT_GPU();
  const uint64_t n = 5000;
  for (const bool fused : {false, true}) {
    OptimizerConfig config{"sgd", 0.1, 0.9, false, 1e-2};
    config.clipNorm = 1.0;
    config.fused = fused;
    Optimizer host(config), gpu(config);
    std::vector<float> param = wave(n, 1.0f), grad = wave(n, 3.0f), state(n, 0.0f);
    const GpuBuffer gpuParam(n * 4, 0), gpuGrad(n * 4, 0), gpuState(n * 4, 0);
    copyToGpu(gpuParam.data(), param.data(), n * 4, 0);
    copyToGpu(gpuGrad.data(), grad.data(), n * 4, 0);
    for (Optimizer* o : {&host, &gpu}) {
      o->beginStep();
      o->beginUpdates();
      o->setClip(10.0, 0.1f);
    }
    host.update(param.data(), grad.data(), state.data(), n, WeightDecay::kApply);
    gpu.updateManyOnGpu(
        {{gpuParam.data(), gpuGrad.data(), static_cast<float*>(gpuState.data()), n, WeightDecay::kApply}}, 0);
    gpu.settle();
    std::vector<float> fromGpu(n);
    copyFromGpu(fromGpu.data(), gpuParam.data(), n * 4, 0);
    double worst = 0;
    for (uint64_t i = 0; i < n; ++i) worst = std::max(worst, std::abs(double(fromGpu[i]) - param[i]));
    EXPECT_LT(worst, 1e-6) << (fused ? "fused" : "a kernel per parameter");
    // Unclipped, the step would be ten times as long: the factor was applied.
    EXPECT_NEAR(fromGpu[1], wave(2, 1.0f)[1] - 0.1f * (0.1f * grad[1] + 1e-2f * wave(2, 1.0f)[1]), 1e-5);
  }
}

}  // namespace
}  // namespace dtb::core
