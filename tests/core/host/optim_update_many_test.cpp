// optim_update_many (ABI 1.12): the same updates as optim_update slice by
// slice, every slice checked before any is updated, and a GPU's slices
// handed to the optimizer together (where they become a few fused kernels:
// gpu_optimizer_test.cpp checks those on a GPU).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dtbench/plugin.hpp"
#include "host/host_services.h"
#include "host/optimizer_kernels.h"
#include "train/optimizer.h"

namespace dtb::core {
namespace {

// Two host parameters, the second without weight decay, as a strategy's
// slices: their values, gradients and momentum.
struct TwoSlices {
  std::vector<float> values[2] = {{1.0f, -2.0f, 3.0f}, {0.5f, 0.25f}};
  std::vector<float> grads[2] = {{0.1f, 0.2f, -0.3f}, {-1.0f, 2.0f}};
  std::vector<float> states[2] = {std::vector<float>(3, 0.0f), std::vector<float>(2, 0.0f)};

  dtb_tensor_t value(int i) { return dtb::hostTensor(values[i].data(), values[i].size(), DTB_DTYPE_F32); }
  dtb_tensor_t grad(int i) { return dtb::hostTensor(grads[i].data(), grads[i].size(), DTB_DTYPE_F32); }
};

OptimizerConfig momentumWithDecay() {
  OptimizerConfig config;
  config.lr = 0.1;
  config.momentum = 0.9;
  config.weightDecay = 0.5;
  return config;
}

class ServicesOver {
 public:
  explicit ServicesOver(OptimizerKernels& optimizer) : services_("strategy/test", {}) {
    services_.bind(nullptr, &optimizer);
    decayed_.index = 0;
    excluded_.index = 1;
    excluded_.flags = DTB_PARAM_FLAG_NO_WEIGHT_DECAY;
    dtb_param_t* params[] = {&decayed_, &excluded_};
    services_.describeParams(params, 2);
  }
  const dtb_host_t* host() const { return services_.table(); }
  HostServices& services() { return services_; }

 private:
  HostServices services_;
  dtb_param_t decayed_{}, excluded_{};
};

TEST(OptimUpdateMany, UpdatesAsOptimUpdateDoesSliceBySlice) {
  Optimizer one(momentumWithDecay()), many(momentumWithDecay());
  ServicesOver byOne(one), byMany(many);
  TwoSlices a, b;
  for (int step = 0; step < 3; ++step) {
    one.beginStep();
    many.beginStep();
    for (int i = 0; i < 2; ++i) {
      dtb_tensor_t value = a.value(i), grad = a.grad(i);
      ASSERT_EQ(byOne.host()->optim_update(byOne.host()->ctx, &value, &grad, a.states[i].data(), i),
                DTB_STATUS_OK);
    }
    dtb_tensor_t values[] = {b.value(0), b.value(1)};
    const dtb_tensor_t grads[] = {b.grad(0), b.grad(1)};
    float* const states[] = {b.states[0].data(), b.states[1].data()};
    const uint32_t indices[] = {0, 1};
    ASSERT_EQ(byMany.host()->optim_update_many(byMany.host()->ctx, values, grads, states, indices, 2),
              DTB_STATUS_OK);
  }
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(a.values[i], b.values[i]) << "parameter " << i;
    EXPECT_EQ(a.states[i], b.states[i]) << "parameter " << i;
  }
  // Both moved: an equality of two no-ops would prove nothing.
  EXPECT_NE(a.values[0], TwoSlices{}.values[0]);
  EXPECT_NE(a.values[1], TwoSlices{}.values[1]);
}

TEST(OptimUpdateMany, ABadSliceNamesItselfAndNothingIsUpdated) {
  Optimizer optimizer(momentumWithDecay());
  ServicesOver services(optimizer);
  const dtb_host_t* host = services.host();
  TwoSlices s;
  optimizer.beginStep();
  std::vector<float> shortGrad(1, 1.0f);
  dtb_tensor_t values[] = {s.value(0), s.value(1)};
  const dtb_tensor_t grads[] = {s.grad(0), dtb::hostTensor(shortGrad.data(), 1, DTB_DTYPE_F32)};
  float* const states[] = {s.states[0].data(), s.states[1].data()};
  const uint32_t indices[] = {0, 1};
  EXPECT_EQ(host->optim_update_many(host->ctx, values, grads, states, indices, 2),
            DTB_STATUS_INVALID_ARGUMENT);
  const std::string error = services.services().takeError().value_or("");
  EXPECT_NE(error.find("optim_update_many: slice 1: param and grad must be f32 tensors of equal count"),
            std::string::npos)
      << error;
  EXPECT_EQ(s.values[0], TwoSlices{}.values[0]) << "slice 0 was updated before slice 1 was checked";
  EXPECT_EQ(s.states[0], TwoSlices{}.states[0]);

  const uint32_t pastTheParameters[] = {0, 7};
  const dtb_tensor_t goodGrads[] = {s.grad(0), s.grad(1)};
  EXPECT_EQ(host->optim_update_many(host->ctx, values, goodGrads, states, pastTheParameters, 2),
            DTB_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(services.services().takeError().value_or("").find("slice 1: param_index 7 is not a parameter"),
            std::string::npos);
  EXPECT_EQ(host->optim_update_many(host->ctx, nullptr, goodGrads, states, indices, 2),
            DTB_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(services.services().takeError().value_or("").find("optim_update_many"), std::string::npos);
  EXPECT_EQ(s.values[0], TwoSlices{}.values[0]);
  // No slices: nothing to do, and the arrays need not exist.
  EXPECT_EQ(host->optim_update_many(host->ctx, nullptr, nullptr, nullptr, nullptr, 0), DTB_STATUS_OK);
}

// What the host hands the optimizer of a GPU's slices: one call per GPU
// with its slices in order and each one's weight decay, the host's slices
// updated on the host. Recorded by a stand-in optimizer.
class RecordingOptimizer : public OptimizerKernels {
 public:
  // No state: in a build without CUDA no memory passes for a GPU's, and
  // the stand-in GPU tensors here are host memory.
  uint32_t stateFloats() const override { return 0; }
  void update(float* param, const float*, float*, size_t, WeightDecay) const override {
    hostUpdates.push_back(param);
  }
  void updateManyOnGpu(const std::vector<GpuUpdateSlice>& slices, int device) override {
    gpuCalls.emplace_back(device, slices);
  }
  double squaredNorm(const dtb_tensor_t*, uint32_t) const override { return 0; }
  double squaredNormOnGpu(const dtb_tensor_t*, uint32_t, int) const override { return 0; }

  mutable std::vector<const float*> hostUpdates;
  std::vector<std::pair<int, std::vector<GpuUpdateSlice>>> gpuCalls;
};

TEST(OptimUpdateMany, EachGpusSlicesGoToTheOptimizerTogetherInOrder) {
  RecordingOptimizer optimizer;
  ServicesOver services(optimizer);
  const dtb_host_t* host = services.host();
  // Stand-ins for GPU memory: the host never reads it here.
  float memory[5][4] = {};
  auto on = [&](int slot, int gpu) {
    dtb_tensor_t t = dtb::hostTensor(memory[slot], 4, DTB_DTYPE_F32);
    if (gpu >= 0) t.device = {DTB_DEVICE_CUDA, gpu};
    return t;
  };
  dtb_tensor_t values[] = {on(0, 0), on(1, -1), on(2, 1), on(3, 0)};
  const dtb_tensor_t grads[] = {on(4, 0), on(4, -1), on(4, 1), on(4, 0)};
  float state[4][4] = {};
  float* const states[] = {state[0], state[1], state[2], state[3]};
  const uint32_t indices[] = {1, 0, 0, 0};
  ASSERT_EQ(host->optim_update_many(host->ctx, values, grads, states, indices, 4), DTB_STATUS_OK);

  ASSERT_EQ(optimizer.hostUpdates.size(), 1u);
  EXPECT_EQ(optimizer.hostUpdates[0], memory[1]);
  ASSERT_EQ(optimizer.gpuCalls.size(), 2u);
  const auto& [first, onFirst] = optimizer.gpuCalls[0];
  EXPECT_EQ(first, 0);
  ASSERT_EQ(onFirst.size(), 2u);
  EXPECT_EQ(onFirst[0].param, memory[0]);
  EXPECT_EQ(onFirst[0].state, state[0]);
  EXPECT_EQ(onFirst[0].count, 4u);
  EXPECT_EQ(onFirst[0].decay, WeightDecay::kSkip);  // parameter 1 is flagged
  EXPECT_EQ(onFirst[1].param, memory[3]);
  EXPECT_EQ(onFirst[1].decay, WeightDecay::kApply);
  const auto& [second, onSecond] = optimizer.gpuCalls[1];
  EXPECT_EQ(second, 1);
  ASSERT_EQ(onSecond.size(), 1u);
  EXPECT_EQ(onSecond[0].param, memory[2]);

  // A gradient on another GPU than its parameter is refused before any call.
  optimizer.gpuCalls.clear();
  optimizer.hostUpdates.clear();
  const dtb_tensor_t crossed[] = {on(4, 0), on(4, -1), on(4, 0), on(4, 0)};
  EXPECT_EQ(host->optim_update_many(host->ctx, values, crossed, states, indices, 4),
            DTB_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(services.services().takeError().value_or("").find("slice 2"), std::string::npos);
  EXPECT_TRUE(optimizer.gpuCalls.empty());
  EXPECT_TRUE(optimizer.hostUpdates.empty());
}

// A GPU's update from state in host memory would fault on the GPU: refused
// with the others' checks, naming the slice by its index in the call,
// before the host slice ahead of it is updated. (In a build without CUDA no
// memory is a GPU's, so this runs everywhere.)
TEST(OptimUpdateMany, AGpuSlicesStateOffItsGpuIsRefusedBeforeAnyUpdate) {
  Optimizer optimizer(momentumWithDecay());
  ServicesOver services(optimizer);
  const dtb_host_t* host = services.host();
  TwoSlices s;
  optimizer.beginStep();
  dtb_tensor_t values[] = {s.value(0), s.value(1)};
  dtb_tensor_t grads[] = {s.grad(0), s.grad(1)};
  values[1].device = grads[1].device = {DTB_DEVICE_CUDA, 0};  // stand-ins: never reached
  float* const states[] = {s.states[0].data(), s.states[1].data()};
  const uint32_t indices[] = {0, 1};
  EXPECT_EQ(host->optim_update_many(host->ctx, values, grads, states, indices, 2),
            DTB_STATUS_INVALID_ARGUMENT);
  const std::string error = services.services().takeError().value_or("");
  EXPECT_NE(error.find("optim_update_many: slice 1: the optimizer state is not memory of GPU 0"),
            std::string::npos)
      << error;
  EXPECT_EQ(s.values[0], TwoSlices{}.values[0]) << "the host slice was updated before the GPU's was checked";
}

}  // namespace
}  // namespace dtb::core
