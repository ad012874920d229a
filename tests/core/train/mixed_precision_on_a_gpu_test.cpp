// Mixed precision for a model on a GPU, its logic checked on the CPU: the
// records live on the model's GPU, every conversion goes through the store
// for that device, and a GPU's store queues its work. The stand-in below
// keeps host memory but queues every call until settle(), as a GPU's stream
// would, so a value the model reads before MixedPrecision settled would be
// stale here, and an overflow read before the checks ran would be missed.
// (The real store's kernels are checked against the host's on a GPU:
// tests/core/cuda/gpu_mixed_precision_test.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dtbench/half.hpp"
#include "host/host_services.h"
#include "train/master_weights.h"
#include "train/mixed_precision.h"
#include "train/precision.h"

namespace dtb::core {
namespace {

struct StoreLog {
  int allocated = 0, released = 0, settles = 0;
};

class QueuedStandIn final : public LowPrecisionStore {
 public:
  explicit QueuedStandIn(StoreLog& log) : log_(log) {}
  dtb_device_t device() const override { return {DTB_DEVICE_CUDA, 1}; }
  void* allocate(uint64_t count) override {
    ++log_.allocated;
    return std::calloc(count > 0 ? count : 1, sizeof(uint16_t));
  }
  void release(void* data) override {
    EXPECT_TRUE(queue_.empty()) << "storage released with work still queued into it";
    ++log_.released;
    std::free(data);
  }
  void round(const float* from, uint16_t* to, uint64_t count, dtb_dtype_t dtype, float scale) override {
    queue_.push_back([=, this] { flag_ |= !roundToLowPrecision(from, to, count, dtype, scale); });
  }
  void widen(const uint16_t* from, float* to, uint64_t count, dtb_dtype_t dtype) override {
    queue_.push_back([=] { widenFromLowPrecision(from, to, count, dtype); });
  }
  void setFirst(uint16_t* to, uint16_t bits) override {
    queue_.push_back([=] { *to = bits; });
  }
  void noteNonFinite(const uint16_t* values, uint64_t count, dtb_dtype_t dtype) override {
    queue_.push_back([=, this] { flag_ |= !allFinite(values, count, dtype); });
  }
  bool overflowNoted() override {
    settle();
    return flag_;
  }
  void clearOverflow() override {
    queue_.push_back([this] { flag_ = false; });  // queued, as the GPU's store does
  }
  void settle() override {
    ++log_.settles;
    for (auto& work : queue_) work();
    queue_.clear();
  }
  size_t queued() const { return queue_.size(); }

 private:
  StoreLog& log_;
  std::vector<std::function<void()>> queue_;
  bool flag_ = false;
};

// Two f32 parameters (3 and 2 elements) whose tensors say they are on GPU 1,
// in two layers.
struct GpuModel {
  std::vector<float> values[2] = {{1.0f + 1.0f / 512, -2.0f, 0.1f}, {3.0f, 1e-3f}};
  std::vector<float> grads[2] = {{0, 0, 0}, {0, 0}};
  dtb_param_t records[2]{};
  dtb_param_t* pointers[2] = {&records[0], &records[1]};

  GpuModel() {
    const char* names[2] = {"w", "b"};
    for (uint32_t i = 0; i < 2; ++i) {
      dtb_param_t& p = records[i];
      p.struct_size = sizeof(dtb_param_t);
      p.index = i;
      p.layer = i;
      p.name = names[i];
      p.value = {values[i].data(), values[i].size(), DTB_DTYPE_F32, {DTB_DEVICE_CUDA, 1}};
      p.grad = {grads[i].data(), grads[i].size(), DTB_DTYPE_F32, {DTB_DEVICE_CUDA, 1}};
    }
  }
};

std::unique_ptr<QueuedStandIn> standIn(StoreLog& log) { return std::make_unique<QueuedStandIn>(log); }

TEST(MixedPrecisionOnAGpu, KeepsTheRecordsOnTheModelsGpuAndTheModelReadsSettledValues) {
  GpuModel model;
  StoreLog log;
  {
    MixedPrecision mixed(Precision::kBf16, model.pointers, 2, {}, standIn(log));
    EXPECT_EQ(log.allocated, 4) << "a value and a gradient per parameter, in the store";
    const dtb_param_t& w = *mixed.params()[0];
    EXPECT_EQ(w.value.device.type, DTB_DEVICE_CUDA);
    EXPECT_EQ(w.value.device.index, 1);
    EXPECT_EQ(w.grad.device.index, 1);
    EXPECT_EQ(w.value.dtype, DTB_DTYPE_BF16);
    EXPECT_EQ(mixed.device().type, DTB_DEVICE_CUDA);
    EXPECT_EQ(model.values[0][0], 1.0f) << "the model computes on the bf16 values from its first forward";

    // A step's update wrote the records; the model reads them widened.
    auto* wValue = static_cast<uint16_t*>(mixed.params()[0]->value.data);
    auto* bValue = static_cast<uint16_t*>(mixed.params()[1]->value.data);
    wValue[1] = floatToBfloat16(5.0f);
    bValue[0] = floatToBfloat16(7.0f);
    mixed.valuesToModel();
    EXPECT_EQ(model.values[0][1], 5.0f);
    EXPECT_EQ(model.values[1][0], 7.0f);
    // A strategy that hooks layers hands them over layer by layer, each
    // settled before that layer's kernels read it.
    wValue[1] = floatToBfloat16(6.0f);
    bValue[0] = floatToBfloat16(8.0f);
    mixed.layerValuesToModel(1);
    EXPECT_EQ(model.values[1][0], 8.0f);
    EXPECT_EQ(model.values[0][1], 5.0f) << "layer 0 was not asked for";
    mixed.layerValuesToModel(0);
    EXPECT_EQ(model.values[0][1], 6.0f);

    // A released record's storage goes back to the store.
    ASSERT_TRUE(mixed.release(*mixed.params()[1], DTB_PARAM_PART_GRAD));
    EXPECT_EQ(log.released, 1);
    EXPECT_EQ(mixed.params()[1]->grad.data, nullptr);
  }
  EXPECT_EQ(log.released, 4) << "the rest when mixed precision ends";
}

TEST(MixedPrecisionOnAGpu, ReadsAnOverflowOnlyAfterTheQueuedChecksRan) {
  GpuModel model;
  StoreLog log;
  auto store = standIn(log);
  QueuedStandIn* queue = store.get();
  MixedPrecision mixed(Precision::kFp16, model.pointers, 2, LossScalerConfig{1024}, std::move(store));
  mixed.beginBackward();
  model.grads[1] = {0.5f, 100.0f};  // 100 x 1024 overflows fp16
  const dtb_param_t* b = mixed.gradientReady(model.records[1]);
  EXPECT_GT(queue->queued(), 0u) << "the rounding is queued, not waited for";
  model.grads[0] = {1.0f, 2.0f, 3.0f};
  mixed.finishBackward();
  EXPECT_TRUE(mixed.overflowed());
  EXPECT_EQ(halfToFloat(static_cast<const uint16_t*>(b->grad.data)[0]), 512.0f);
  mixed.beginBackward();
  model.grads[1] = {0.5f, 0.25f};
  mixed.finishBackward();
  EXPECT_FALSE(mixed.overflowed()) << "a new backward clears the GPU's flag";
  // An overflow still queued, never read, when the next backward begins is
  // cleared in order: it does not reach the next step.
  model.grads[1] = {0.5f, 100.0f};
  mixed.gradientReady(model.records[1]);
  mixed.beginBackward();
  model.grads[1] = {0.5f, 0.25f};
  mixed.finishBackward();
  EXPECT_FALSE(mixed.overflowed()) << "the last step's queued overflow";

  // The reduced gradients optim_check hands in are checked on the GPU too,
  // and asking again starts clean.
  Optimizer sgd({"sgd", 0.1});
  MasterWeightOptimizer optimizer(sgd, mixed);
  EXPECT_EQ(optimizer.paramDevice().type, DTB_DEVICE_CUDA);
  std::vector<uint16_t> reduced = {floatToHalf(1.0f), floatToHalf(std::numeric_limits<float>::infinity())};
  const dtb_tensor_t slice{reduced.data(), reduced.size(), DTB_DTYPE_F16, {DTB_DEVICE_CUDA, 1}};
  EXPECT_TRUE(optimizer.overflowIn(&slice, 1)) << "an overflow in the reduction";
  reduced[1] = floatToHalf(2.0f);
  EXPECT_FALSE(optimizer.overflowIn(&slice, 1)) << "the last answer's overflow was kept";

  // An injected overflow reaches the GPU's gradient and the flag.
  mixed.beginBackward();
  mixed.poisonNextGradient();
  b = mixed.gradientReady(model.records[1]);
  mixed.finishBackward();
  EXPECT_TRUE(mixed.overflowed());
  queue->settle();  // as a copy from the GPU waits for what was queued
  EXPECT_TRUE(std::isinf(halfToFloat(static_cast<const uint16_t*>(b->grad.data)[0])));
}

// The host's optim_check in an fp16 run on GPU 1: the strategy's reduced
// gradients are checked where they are; host gradients are refused, naming
// where the parameters are.
TEST(MixedPrecisionOnAGpu, OptimCheckTakesTheGpusGradientsAndRefusesHostOnes) {
  GpuModel model;
  StoreLog log;
  MixedPrecision mixed(Precision::kFp16, model.pointers, 2, LossScalerConfig{1024}, standIn(log));
  Optimizer sgd({"sgd", 0.1});
  MasterWeightOptimizer optimizer(sgd, mixed);
  HostServices services("strategy/test", {});
  services.bind(nullptr, &optimizer);
  const dtb_host_t* host = services.table();
  mixed.beginBackward();
  mixed.finishBackward();
  std::vector<uint16_t> reduced = {floatToHalf(1.0f), floatToHalf(2.0f)};
  dtb_tensor_t slice{reduced.data(), reduced.size(), DTB_DTYPE_F16, {DTB_DEVICE_HOST, 0}};
  int32_t apply = -1;
  mixed.beginStep();
  EXPECT_EQ(host->optim_check(host->ctx, &slice, 1, &apply), DTB_STATUS_INVALID_ARGUMENT);
  const std::optional<std::string> error = services.takeError();
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("is not a f16 tensor with data on GPU 1, where this run's parameters are"),
            std::string::npos)
      << *error;
  slice.device = {DTB_DEVICE_CUDA, 1};
  ASSERT_EQ(host->optim_check(host->ctx, &slice, 1, &apply), DTB_STATUS_OK);
  EXPECT_EQ(apply, 1);
  mixed.beginBackward();
  mixed.finishBackward();
  mixed.beginStep();
  reduced[1] = floatToHalf(std::numeric_limits<float>::infinity());
  ASSERT_EQ(host->optim_check(host->ctx, &slice, 1, &apply), DTB_STATUS_OK);
  EXPECT_EQ(apply, 0) << "an inf in the GPU's reduced gradients skips the step";
}

TEST(MixedPrecisionOnAGpu, RefusesParametersSpreadOverDevicesNamingTheFirstOffThem) {
  GpuModel model;
  model.records[1].grad.device = {DTB_DEVICE_CUDA, 0};
  StoreLog log;
  try {
    MixedPrecision mixed(Precision::kBf16, model.pointers, 2, {}, standIn(log));
    FAIL() << "parameters on two GPUs were taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(
        std::string(e.what()).find("parameter 'b' is not an f32 tensor on the device of the model's first"),
        std::string::npos)
        << e.what();
  }
  EXPECT_EQ(log.released, log.allocated) << "what was allocated before the refusal is given back";
}

}  // namespace
}  // namespace dtb::core
