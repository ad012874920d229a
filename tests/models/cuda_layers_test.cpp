// Every CUDA layer against its oneDNN twin on the same inputs and weights
// (forward, input gradient, parameter gradients), TF32 off so both compute
// in fp32; then whole models (ResNet-18, MobileNetV2) one training step on
// each device. Skipped, one line each, where no GPU is usable.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gpu_available.h"
#include "layers.h"

namespace dtb::nn {
namespace {

std::vector<float> randomValues(uint64_t count, uint64_t seed, float scale = 1.0f) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> v(count);
  for (float& x : v) x = normal(rng);
  return v;
}

// GPU memory holding a copy of host values, freed at scope end.
class OnGpu {
 public:
  explicit OnGpu(const std::vector<float>& host) : count_(host.size()) {
    EXPECT_EQ(cudaMalloc(&data_, std::max<size_t>(1, count_) * sizeof(float)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(data_, host.data(), count_ * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  }
  OnGpu(const OnGpu&) = delete;
  OnGpu& operator=(const OnGpu&) = delete;
  ~OnGpu() { cudaFree(data_); }
  const float* get() const { return static_cast<const float*>(data_); }

 private:
  void* data_ = nullptr;
  size_t count_;
};

std::vector<float> toHost(const float* gpu, uint64_t count) {
  std::vector<float> host(count);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(host.data(), gpu, count * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  return host;
}

// Agreement of two fp32 computations that sum in different orders: every
// element within `tolerance` of the reference, relative to its largest
// magnitude (and at least absolute `tolerance` near zero).
void expectClose(const std::vector<float>& gpu, const float* cpu, uint64_t count, const std::string& what,
                 double tolerance = 2e-4) {
  ASSERT_EQ(gpu.size(), count) << what;
  double scale = 1.0, worst = 0.0;
  uint64_t worstAt = 0;
  for (uint64_t i = 0; i < count; ++i) scale = std::max(scale, std::abs(double(cpu[i])));
  for (uint64_t i = 0; i < count; ++i) {
    const double error = std::abs(double(gpu[i]) - cpu[i]);
    if (error > worst) worst = error, worstAt = i;
  }
  EXPECT_LE(worst, tolerance * scale) << what << ": element " << worstAt << " is " << gpu[worstAt]
                                      << " on the GPU, " << cpu[worstAt] << " on the CPU";
}

// One layer built twice, by the oneDNN and the CUDA layers, from registries
// with the same seed; parameters given the same random values (batch norm
// starts at 1 and 0, which would hide mistakes) before the GPU copy.
class Twin {
 public:
  template <typename Build>
  explicit Twin(Build build) : cpuLayers_(makeCpuLayers()), gpuLayers_(makeCudaLayers(fp32())) {
    cpu_ = build(*cpuLayers_, cpuRegistry_);
    gpu_ = build(*gpuLayers_, gpuRegistry_);
    for (uint32_t i = 0; i < cpuRegistry_.paramCount(); ++i) {
      const auto values = randomValues(cpuRegistry_.param(i).count(), 100 + i, 0.5f);
      std::copy(values.begin(), values.end(), cpuRegistry_.param(i).value());
      std::copy(values.begin(), values.end(), gpuRegistry_.param(i).value());
    }
    gpuLayers_->place(gpuRegistry_);
  }

  // Forward on both; compare outputs; backward from the same dy; compare
  // the input gradient and every parameter gradient.
  void check(const Shape& in, bool training, const std::string& what, float inputScale = 1.0f) {
    const Pass pass(nullptr, training);
    const auto x = randomValues(in.count(), 1, inputScale);
    const OnGpu xGpu(x);
    const Shape out = cpu_->outputShape(in);
    ASSERT_EQ(gpu_->outputShape(in).count(), out.count());
    const float* yCpu = cpu_->forward(x.data(), in, pass);
    const float* yGpu = gpu_->forward(xGpu.get(), in, pass);
    expectClose(toHost(yGpu, out.count()), yCpu, out.count(), what + " forward");
    if (!training) return;
    const auto dy = randomValues(out.count(), 2);
    const OnGpu dyGpu(dy);
    const float* dxCpu = cpu_->backward(dy.data(), pass, true);
    const float* dxGpu = gpu_->backward(dyGpu.get(), pass, true);
    expectClose(toHost(dxGpu, in.count()), dxCpu, in.count(), what + " input gradient");
    for (uint32_t i = 0; i < cpuRegistry_.paramCount(); ++i) {
      Parameter& c = cpuRegistry_.param(i);
      Parameter& g = gpuRegistry_.param(i);
      EXPECT_EQ(g.view()->grad.device.type, DTB_DEVICE_CUDA);
      expectClose(toHost(g.grad(), g.count()), c.grad(), c.count(),
                  what + " " + c.view()->name + " gradient");
    }
  }

  Module& gpu() { return *gpu_; }

 private:
  static CudaLayerOptions fp32() {
    CudaLayerOptions options;
    options.allowTf32 = false;
    return options;
  }

  ParameterRegistry cpuRegistry_{7}, gpuRegistry_{7};
  std::unique_ptr<Layers> cpuLayers_, gpuLayers_;
  std::unique_ptr<Module> cpu_, gpu_;
};

TEST(CudaLayers, ConvolutionsMatchOneDnn) {
  DTBENCH_SKIP_WITHOUT_GPU();
  const struct {
    Conv2dSpec spec;
    bool bias;
    Shape in;
  } cases[] = {
      {{3, 8, 3, 1, 1}, false, {2, 3, 9, 9}},       // 3x3, padded
      {{4, 6, 7, 2, 3}, false, {2, 4, 16, 16}},     // the ImageNet stem's shape, strided
      {{8, 16, 1, 2, 0}, false, {3, 8, 8, 8}},      // a downsampling 1x1
      {{6, 6, 3, 2, 1, 6}, false, {2, 6, 10, 10}},  // depthwise (MobileNetV2)
      {{1, 10, 5, 1, 0}, true, {4, 1, 28, 28}},     // LeNet's first, with bias
  };
  for (const auto& c : cases) {
    Twin twin([&](Layers& l, ParameterRegistry& r) { return l.conv(r, "conv", c.spec, c.bias); });
    twin.check(c.in, true, "conv k" + std::to_string(c.spec.kernel) + " g" + std::to_string(c.spec.groups));
  }
}

TEST(CudaLayers, BatchNormMatchesOneDnnInTrainingAndEvaluation) {
  DTBENCH_SKIP_WITHOUT_GPU();
  Twin twin([](Layers& l, ParameterRegistry& r) { return l.batchNorm(r, "bn", 5); });
  twin.check({4, 5, 6, 6}, true, "batch norm (training)");
  twin.check({4, 5, 6, 6}, true, "batch norm (training, second step)");
  // Evaluation uses the running estimates, moved twice by now.
  twin.check({4, 5, 6, 6}, false, "batch norm (evaluation)");
}

TEST(CudaLayers, LinearMatchesOneDnn) {
  DTBENCH_SKIP_WITHOUT_GPU();
  Twin twin([](Layers& l, ParameterRegistry& r) { return l.linear(r, "fc", 48, 10); });
  twin.check({5, 3, 4, 4}, true, "linear");
}

TEST(CudaLayers, ActivationsAndPoolingMatchOneDnn) {
  DTBENCH_SKIP_WITHOUT_GPU();
  Twin relu([](Layers& l, ParameterRegistry&) { return l.relu(false); });
  relu.check({2, 3, 5, 5}, true, "relu");
  Twin relu6([](Layers& l, ParameterRegistry&) { return l.relu(true); });
  relu6.check({2, 3, 5, 5}, true, "relu6", 5.0f);  // N(0, 25): a quarter of the inputs above 6
  Twin maxPool([](Layers& l, ParameterRegistry&) { return l.maxPool({3, 2, 1}); });
  maxPool.check({2, 3, 9, 9}, true, "max pool 3/2/1");
  Twin lenetPool([](Layers& l, ParameterRegistry&) { return l.maxPool({2, 2, 0}); });
  lenetPool.check({2, 3, 8, 8}, true, "max pool 2/2");
  Twin average([](Layers& l, ParameterRegistry&) { return l.globalAvgPool(); });
  average.check({3, 4, 7, 7}, true, "global average pool");
}

TEST(CudaLayers, ResidualSumMatchesOneDnn) {
  DTBENCH_SKIP_WITHOUT_GPU();
  Twin block([](Layers& l, ParameterRegistry& r) {
    auto main = l.conv(r, "main", {4, 8, 3, 2, 1});
    auto shortcut = l.conv(r, "shortcut", {4, 8, 1, 2, 0});
    return l.residual(std::move(main), std::move(shortcut), true);
  });
  block.check({2, 4, 8, 8}, true, "residual with a projection");
  Twin identity([](Layers& l, ParameterRegistry&) { return l.residual(l.relu(true), nullptr, false); });
  identity.check({2, 4, 5, 5}, true, "identity residual", 5.0f);
}

// Dropout draws differently on each device: checked for what it must be.
TEST(CudaLayers, DropoutKeepsScaledValuesAndRoutesGradientsThroughThem) {
  DTBENCH_SKIP_WITHOUT_GPU();
  auto layers = makeCudaLayers({});
  auto dropout = layers->dropout({0.25, 3});
  const Shape in{4, 8, 16, 16};
  const auto x = randomValues(in.count(), 4);
  const OnGpu xGpu(x);
  const Pass training(nullptr, true);
  const auto y = toHost(dropout->forward(xGpu.get(), in, training), in.count());
  const auto dy = randomValues(in.count(), 5);
  const OnGpu dyGpu(dy);
  const auto dx = toHost(dropout->backward(dyGpu.get(), training, true), in.count());
  uint64_t dropped = 0;
  for (uint64_t i = 0; i < in.count(); ++i) {
    const bool kept = y[i] != 0.0f;
    dropped += kept ? 0 : 1;
    if (kept) {
      EXPECT_NEAR(y[i], x[i] / 0.75f, 1e-5f * (1 + std::abs(x[i])));
      EXPECT_NEAR(dx[i], dy[i] / 0.75f, 1e-5f * (1 + std::abs(dy[i])));
    } else {
      EXPECT_EQ(dx[i], 0.0f);
    }
  }
  EXPECT_NEAR(double(dropped) / double(in.count()), 0.25, 0.02);  // 8,192 draws: 0.02 is > 4 sigma
  const auto again = toHost(dropout->forward(xGpu.get(), in, training), in.count());
  EXPECT_NE(again, y) << "every call draws a new mask";
  const auto evaluated = toHost(dropout->forward(xGpu.get(), in, Pass(nullptr, false)), in.count());
  EXPECT_EQ(evaluated, x) << "evaluation keeps every value";
}

// Dropout2d (LeNet's) drops whole channels: one mask value a channel of a
// sample; and two modules of one seed draw from one stream, so they never
// repeat each other's masks. Written 2026-12-01; not yet run on a GPU.
TEST(CudaLayers, ChannelDropoutDropsWholeChannelsAndModulesOfOneSeedDrawAfresh) {
  DTBENCH_SKIP_WITHOUT_GPU();
  auto layers = makeCudaLayers({});
  auto first = layers->dropout({0.5, 7, /*perChannel=*/true});
  auto second = layers->dropout({0.5, 7, /*perChannel=*/true});
  const Shape in{16, 32, 8, 8};
  const OnGpu ones(std::vector<float>(in.count(), 1.0f));
  const Pass training(nullptr, true);
  const auto a = toHost(first->forward(ones.get(), in, training), in.count());
  const auto b = toHost(second->forward(ones.get(), in, training), in.count());
  uint64_t dropped = 0;
  const uint64_t plane = static_cast<uint64_t>(in.h * in.w), channels = static_cast<uint64_t>(in.n * in.c);
  for (uint64_t c = 0; c < channels; ++c) {
    for (uint64_t k = 1; k < plane; ++k) ASSERT_EQ(a[c * plane + k], a[c * plane]) << "channel " << c;
    EXPECT_TRUE(a[c * plane] == 0.0f || a[c * plane] == 2.0f) << a[c * plane];
    dropped += a[c * plane] == 0.0f ? 1 : 0;
  }
  EXPECT_NEAR(double(dropped) / double(channels), 0.5, 0.09);  // 512 draws: 0.09 is > 4 sigma
  EXPECT_NE(a, b) << "the second module of the seed drew the first's masks again";
}

TEST(CudaLayers, CrossEntropyMatchesTheHosts) {
  DTBENCH_SKIP_WITHOUT_GPU();
  auto cpu = makeCpuLayers();
  auto gpu = makeCudaLayers({});
  for (const double smoothing : {0.0, 0.1}) {
    auto cpuLoss = cpu->crossEntropy(10, smoothing);
    auto gpuLoss = gpu->crossEntropy(10, smoothing);
    const auto logits = randomValues(6 * 10, 9, 3.0f);
    const int32_t labels[6] = {0, 3, 9, 9, 2, 5};
    const OnGpu logitsGpu(logits);
    const LossResult a = cpuLoss->forward(logits.data(), labels, 6);
    const LossResult b = gpuLoss->forward(logitsGpu.get(), labels, 6);
    EXPECT_NEAR(b.loss, a.loss, 1e-9 * (1 + a.loss));
    EXPECT_EQ(b.correct, a.correct);
    expectClose(toHost(gpuLoss->backward(), 60), cpuLoss->backward(), 60, "d loss / d logits", 1e-6);
  }
}

}  // namespace
}  // namespace dtb::nn
