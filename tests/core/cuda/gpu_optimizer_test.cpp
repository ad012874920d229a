// The optimizer on GPU memory against the host's loop, step by step, for
// every rule (SGD plain, with momentum, Nesterov and weight decay; Adam;
// AdamW): the same UpdateRule, so the values agree to rounding. Skipped, in
// one line, where no GPU is usable.
#include "cuda/gpu_optimizer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/cuda_memory.h"
#include "gpu_available.h"
#include "train/optimizer.h"

namespace dtb::core {
namespace {

std::vector<float> random(size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<float> v(count);
  for (float& x : v) x = normal(rng);
  return v;
}

TEST(GpuOptimizer, EveryRuleMatchesTheHostsLoop) {
  DTBENCH_SKIP_WITHOUT_GPU();
  const OptimizerConfig configs[] = {
      {"sgd", 0.1, 0, false, 0},      {"sgd", 0.1, 0.9, false, 1e-2},  {"sgd", 0.1, 0.9, true, 1e-2},
      {"adam", 1e-3, 0, false, 1e-2}, {"adamw", 1e-3, 0, false, 1e-2},
  };
  const size_t count = 10000;
  for (const OptimizerConfig& config : configs) {
    Optimizer host(config), gpu(config);
    const size_t stateCount = count * host.stateFloats();
    std::vector<float> param = random(count, 1), state(stateCount, 0.0f);
    const GpuBuffer gpuParam(count * 4, 0), gpuGrad(count * 4, 0),
        gpuState(std::max<size_t>(stateCount, 1) * 4, 0);
    copyToGpu(gpuParam.data(), param.data(), count * 4, 0);
    for (int step = 1; step <= 3; ++step) {
      const std::vector<float> grad = random(count, 10 + step);
      copyToGpu(gpuGrad.data(), grad.data(), count * 4, 0);
      host.beginStep();
      gpu.beginStep();
      const WeightDecay decay = step == 2 ? WeightDecay::kSkip : WeightDecay::kApply;
      host.update(param.data(), grad.data(), state.data(), count, decay);
      gpu.updateOnGpu(static_cast<float*>(gpuParam.data()), static_cast<const float*>(gpuGrad.data()),
                      static_cast<float*>(gpuState.data()), count, decay, 0);
      gpu.settle();
    }
    std::vector<float> fromGpu(count);
    copyFromGpu(fromGpu.data(), gpuParam.data(), count * 4, 0);
    double worst = 0;
    for (size_t i = 0; i < count; ++i) worst = std::max(worst, std::abs(double(fromGpu[i]) - param[i]));
    EXPECT_LT(worst, 1e-5) << config.kind << " momentum " << config.momentum << " nesterov "
                           << config.nesterov;
  }
}

// A kernel given host memory would fault and break the CUDA context for
// every later call: state not on the parameter's GPU is refused first.
TEST(GpuOptimizer, StateOffTheGpuIsRefusedBeforeAnythingRuns) {
  DTBENCH_SKIP_WITHOUT_GPU();
  Optimizer momentum({"sgd", 0.1, 0.9});
  const GpuBuffer param(64 * 4, 0), grad(64 * 4, 0);
  std::vector<float> hostState(64, 0.0f);
  try {
    momentum.updateOnGpu(static_cast<float*>(param.data()), static_cast<const float*>(grad.data()),
                         hostState.data(), 64, WeightDecay::kApply, 0);
    FAIL() << "host state accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not memory of GPU 0"), std::string::npos) << e.what();
  }
  momentum.settle();  // nothing was queued, and the GPU is still usable
}

TEST(GpuOptimizer, SettleWithNothingQueuedNeedsNoGpu) {
  Optimizer optimizer({"sgd", 0.1});
  optimizer.settle();  // a CPU run calls it every step: it must not touch CUDA
}

}  // namespace
}  // namespace dtb::core
