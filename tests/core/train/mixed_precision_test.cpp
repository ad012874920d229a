// Mixed precision's host side on a model of two parameters held here: the
// records strategies get (bf16 / f16, the model's values rounded), the
// gradients rounded with the loss scale and an overflow noted, and the
// master-weight optimizer (f32 master first in the state, the update on it,
// the parameter rounded, a skipped step leaving everything be).
#include "train/mixed_precision.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "dtbench/half.hpp"
#include "dtbench/plugin.hpp"
#include "train/master_weights.h"
#include "train/precision.h"

namespace dtb::core {
namespace {

// Two f32 host parameters of 3 and 2 elements, as a model plugin exposes them.
struct TwoParams {
  std::vector<float> values[2] = {{1.0f + 1.0f / 512, -2.0f, 0.1f}, {3.0f, 1e-3f}};
  std::vector<float> grads[2] = {{0, 0, 0}, {0, 0}};
  dtb_param_t records[2]{};
  dtb_param_t* pointers[2] = {&records[0], &records[1]};

  TwoParams() {
    const char* names[2] = {"w", "b"};
    for (uint32_t i = 0; i < 2; ++i) {
      records[i].struct_size = sizeof(dtb_param_t);
      records[i].index = i;
      records[i].name = names[i];
      records[i].value = dtb::hostTensor(values[i].data(), values[i].size(), DTB_DTYPE_F32);
      records[i].grad = dtb::hostTensor(grads[i].data(), grads[i].size(), DTB_DTYPE_F32);
    }
  }
};

TEST(Precision, RoundsToNearestEvenAndFlagsAnFp16Overflow) {
  const float values[3] = {1.0f + 1.0f / 512, 1.0f + 3.0f / 512, 1.0f};
  uint16_t low[3];
  ASSERT_TRUE(roundToLowPrecision(values, low, 3, DTB_DTYPE_BF16, 1.0f));
  float back[3];
  widenFromLowPrecision(low, back, 3, DTB_DTYPE_BF16);
  EXPECT_EQ(back[0], 1.0f) << "a tie rounds to the even mantissa (bf16 keeps 7 bits)";
  EXPECT_EQ(back[1], 1.0f + 4.0f / 512);
  EXPECT_EQ(back[2], 1.0f);
  const float one = 1.0f;
  uint16_t half;
  EXPECT_TRUE(roundToLowPrecision(&one, &half, 1, DTB_DTYPE_F16, 32768.0f));
  EXPECT_EQ(halfToFloat(half), 32768.0f);
  EXPECT_FALSE(roundToLowPrecision(&one, &half, 1, DTB_DTYPE_F16, 65536.0f))
      << "2^16 is past fp16's largest finite 65504";
  EXPECT_TRUE(std::isinf(halfToFloat(half)));
  EXPECT_TRUE(roundToLowPrecision(&one, &half, 1, DTB_DTYPE_BF16, 65536.0f)) << "bf16 has f32's range";
}

TEST(Precision, ParsesTheSettingAndNamesTheChoices) {
  EXPECT_EQ(parsePrecision("bf16"), Precision::kBf16);
  EXPECT_EQ(precisionDtype(parsePrecision("fp16")), DTB_DTYPE_F16);
  EXPECT_EQ(precisionDtype(Precision::kFp32), DTB_DTYPE_F32);
  try {
    parsePrecision("fp8");
    FAIL() << "fp8 was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("fp32, bf16 or fp16"), std::string::npos) << e.what();
  }
}

TEST(MixedPrecision, GivesStrategiesLowPrecisionRecordsAndRoundsTheModel) {
  TwoParams model;
  MixedPrecision mixed(Precision::kBf16, model.pointers, 2);
  ASSERT_EQ(mixed.count(), 2u);
  const dtb_param_t& w = *mixed.params()[0];
  EXPECT_EQ(w.index, 0u);
  EXPECT_STREQ(w.name, "w");
  EXPECT_EQ(w.value.dtype, DTB_DTYPE_BF16);
  EXPECT_EQ(w.grad.dtype, DTB_DTYPE_BF16);
  EXPECT_EQ(w.value.count, 3u);
  EXPECT_NE(w.value.data, model.values[0].data()) << "the records hold copies of their own";
  EXPECT_EQ(model.values[0][0], 1.0f) << "the model computes on the bf16 value, as after model.bfloat16()";
  EXPECT_EQ(bfloat16ToFloat(static_cast<const uint16_t*>(w.value.data)[1]), -2.0f);
  EXPECT_FLOAT_EQ(model.values[0][2], bfloat16ToFloat(floatToBfloat16(0.1f)));
  EXPECT_FALSE(mixed.scalesLoss());
  EXPECT_EQ(mixed.lossScale(), 1.0f);
}

TEST(MixedPrecision, ReleasesARecordsStorageAndWidensALayersValuesWhereTheStrategyPutThem) {
  TwoParams model;
  model.records[1].layer = 1;
  MixedPrecision mixed(Precision::kBf16, model.pointers, 2);
  dtb_param_t& w = *mixed.params()[0];
  dtb_param_t& b = *mixed.params()[1];
  EXPECT_FALSE(mixed.release(model.records[0], DTB_PARAM_PART_VALUE))
      << "the model's record is not one of ours";
  // ZeRO's way: w points at a buffer of its own before it releases the
  // record's storage (kept pointed); b is released unpointed (set NULL).
  std::vector<uint16_t> gathered(3);
  const float moved[3] = {4.0f, 5.0f, 6.0f};
  roundToLowPrecision(moved, gathered.data(), 3, DTB_DTYPE_BF16, 1.0f);
  w.value.data = gathered.data();
  ASSERT_TRUE(mixed.release(w, DTB_PARAM_PART_VALUE));
  ASSERT_TRUE(mixed.release(b, DTB_PARAM_PART_VALUE));
  EXPECT_EQ(w.value.data, gathered.data());
  EXPECT_EQ(b.value.data, nullptr);
  // Layer 0's forward: w's values come from the strategy's buffer; layer 1's
  // (b) are nowhere, which the strategy is told.
  mixed.layerValuesToModel(0);
  EXPECT_EQ(model.values[0], (std::vector<float>{4.0f, 5.0f, 6.0f}));
  EXPECT_EQ(model.values[1][0], 3.0f) << "another layer's values were touched";
  mixed.layerValuesToModel(7);  // a layer without parameters
  try {
    mixed.layerValuesToModel(1);
    FAIL() << "a released parameter pointed nowhere was widened";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("released parameter 'b'"), std::string::npos) << e.what();
  }
  // A released gradient pointed nowhere is skipped after backward (the
  // strategy reports a missing gradient itself), refused when ready.
  ASSERT_TRUE(mixed.release(b, DTB_PARAM_PART_GRAD));
  mixed.beginBackward();
  EXPECT_THROW(mixed.gradientReady(model.records[1]), std::runtime_error);
  EXPECT_NO_THROW(mixed.finishBackward());
}

TEST(MixedPrecision, RoundsEachGradientAsItIsReadyAndTheRestAfterBackward) {
  TwoParams model;
  MixedPrecision mixed(Precision::kFp16, model.pointers, 2, LossScalerConfig{1024});
  mixed.beginBackward();
  model.grads[1] = {0.5f, -0.25f};
  dtb_param_t* b = mixed.gradientReady(model.records[1]);
  EXPECT_EQ(b, mixed.params()[1]);
  const auto* g = static_cast<const uint16_t*>(b->grad.data);
  EXPECT_EQ(halfToFloat(g[0]), 512.0f) << "scaled by the loss scale, as scaling the loss does";
  EXPECT_EQ(halfToFloat(g[1]), -256.0f);
  model.grads[0] = {1.0f, 2.0f, 100.0f};  // 100 x 1024 overflows fp16
  mixed.finishBackward();
  EXPECT_TRUE(mixed.overflowed());
  EXPECT_TRUE(std::isinf(halfToFloat(static_cast<const uint16_t*>(mixed.params()[0]->grad.data)[2])));
  mixed.beginBackward();
  EXPECT_FALSE(mixed.overflowed()) << "a new backward starts clean";

  TwoParams other;
  EXPECT_THROW(mixed.gradientReady(other.records[0]), std::invalid_argument);
}

TEST(MixedPrecision, AnInjectedOverflowPutsAnInfIntoTheNextGradient) {
  TwoParams model;
  MixedPrecision mixed(Precision::kBf16, model.pointers, 2);
  mixed.beginBackward();
  mixed.poisonNextGradient();
  const dtb_param_t* b = mixed.gradientReady(model.records[1]);
  EXPECT_TRUE(std::isinf(bfloat16ToFloat(static_cast<const uint16_t*>(b->grad.data)[0])));
  EXPECT_TRUE(mixed.overflowed());
  mixed.beginBackward();
  mixed.finishBackward();
  EXPECT_FALSE(mixed.overflowed()) << "the fault strikes once";
}

TEST(MixedPrecision, TheScalerSkipsAStepEveryRankFoundAnOverflowIn) {
  TwoParams model;
  MixedPrecision mixed(Precision::kFp16, model.pointers, 2);
  EXPECT_EQ(mixed.lossScale(), 65536.0f) << "DeepSpeed's initial scale, 2^16";
  EXPECT_FALSE(mixed.settleStep(true));
  EXPECT_TRUE(mixed.skipping());
  EXPECT_EQ(mixed.lossScale(), 65536.0f) << "hysteresis 2: the first overflow keeps the scale";
  EXPECT_FALSE(mixed.settleStep(true));
  EXPECT_EQ(mixed.lossScale(), 32768.0f);
  EXPECT_TRUE(mixed.settleStep(false));
  EXPECT_FALSE(mixed.skipping());
  MixedPrecision bf16(Precision::kBf16, model.pointers, 2);
  EXPECT_TRUE(bf16.settleStep(true)) << "bf16 scales no loss and skips nothing";
}

TEST(MasterWeightOptimizer, UpdatesAnF32MasterCopyAndRoundsTheParameter) {
  TwoParams model;
  MixedPrecision mixed(Precision::kBf16, model.pointers, 2);
  Optimizer sgd({"sgd", 1.0 / 1024, 0.0, false, 0.0});
  MasterWeightOptimizer optimizer(sgd, mixed);
  EXPECT_EQ(optimizer.stateFloats(), 1u) << "plain SGD keeps only the master copy";
  EXPECT_EQ(optimizer.paramDtype(), DTB_DTYPE_BF16);
  std::vector<uint16_t> param = {floatToBfloat16(1.0f)};
  const std::vector<uint16_t> grad = {floatToBfloat16(1.0f)};
  std::vector<float> state(1, 0.0f);
  // Eight steps of 1/1024 each: bf16 (8 bits of mantissa) cannot hold 1 -
  // 1/1024, so the parameter alone would never move; the master does.
  for (int step = 0; step < 8; ++step) {
    sgd.beginStep();
    ASSERT_TRUE(mixed.settleStep(false));
    optimizer.updateLowPrecision(param.data(), grad.data(), state.data(), 1, WeightDecay::kApply);
  }
  EXPECT_FLOAT_EQ(state[0], 1.0f - 8.0f / 1024);
  EXPECT_EQ(bfloat16ToFloat(param[0]), bfloat16ToFloat(floatToBfloat16(1.0f - 8.0f / 1024)));
  EXPECT_NE(bfloat16ToFloat(param[0]), 1.0f);
  EXPECT_THROW(optimizer.update(nullptr, nullptr, nullptr, 0, WeightDecay::kApply), std::logic_error);
}

TEST(MasterWeightOptimizer, UnscalesFp16GradientsAndLeavesASkippedStepBe) {
  TwoParams model;
  MixedPrecision mixed(Precision::kFp16, model.pointers, 2, LossScalerConfig{1024});
  Optimizer adam({"adam", 0.1});
  MasterWeightOptimizer optimizer(adam, mixed);
  EXPECT_EQ(optimizer.stateFloats(), 3u) << "master, exp_avg, exp_avg_sq: DeepSpeed's K = 12 bytes";
  std::vector<uint16_t> param = {floatToHalf(2.0f)};
  std::vector<uint16_t> grad = {floatToHalf(512.0f)};  // 0.5 scaled by 1024
  std::vector<float> state(3, 0.0f);
  ASSERT_FALSE(mixed.settleStep(true));  // an overflow somewhere: skipped
  optimizer.updateLowPrecision(param.data(), grad.data(), state.data(), 1, WeightDecay::kApply);
  EXPECT_EQ(halfToFloat(param[0]), 2.0f);
  EXPECT_EQ(state, std::vector<float>(3, 0.0f)) << "a skipped step leaves master and moments be";
  adam.beginStep();
  ASSERT_TRUE(mixed.settleStep(false));
  optimizer.updateLowPrecision(param.data(), grad.data(), state.data(), 1, WeightDecay::kApply);
  // Adam's first step moves by lr whatever the gradient's size; its moments
  // saw the unscaled gradient 0.5.
  EXPECT_NEAR(state[0], 1.9f, 1e-6);
  EXPECT_NEAR(state[1], 0.1f * 0.5f, 1e-7) << "exp_avg = (1 - beta1) x the unscaled gradient";
  EXPECT_EQ(halfToFloat(param[0]), halfToFloat(floatToHalf(1.9f)));
}

TEST(MasterWeightOptimizer, SettlesAnFp16StepOnTheReducedGradientsAndCountsOnlyAppliedSteps) {
  TwoParams model;
  MixedPrecision mixed(Precision::kFp16, model.pointers, 2, LossScalerConfig{1024, 1000, 1});
  Optimizer adam({"adam", 0.1});
  MasterWeightOptimizer optimizer(adam, mixed);
  EXPECT_TRUE(optimizer.scalesLoss());
  // This rank's own gradients were fine, but their sum over the ranks
  // overflowed fp16 in the reduction: the reduced slice holds an inf.
  mixed.beginBackward();
  mixed.finishBackward();
  std::vector<uint16_t> reduced = {floatToHalf(1.0f), floatToHalf(std::numeric_limits<float>::infinity())};
  const dtb_tensor_t slice = dtb::hostTensor(reduced.data(), reduced.size(), DTB_DTYPE_F16);
  EXPECT_TRUE(optimizer.overflowIn(&slice, 1)) << "an overflow in the reduction is an overflow";
  reduced[1] = floatToHalf(2.0f);
  EXPECT_FALSE(optimizer.overflowIn(&slice, 1));
  mixed.poisonNextGradient();
  mixed.beginBackward();
  mixed.finishBackward();
  EXPECT_TRUE(optimizer.overflowIn(&slice, 1)) << "an overflow before the reduction is one too";

  mixed.beginStep();
  EXPECT_FALSE(optimizer.stepSettled()) << "optim_update waits for optim_check";
  EXPECT_FALSE(optimizer.settleStep(true));
  EXPECT_TRUE(optimizer.stepSettled());
  EXPECT_EQ(adam.step(), 0) << "a skipped step is no optimizer step (Adam's bias correction)";
  EXPECT_EQ(mixed.lossScale(), 512.0f) << "hysteresis 1: halved at once";
  mixed.beginStep();
  EXPECT_TRUE(optimizer.settleStep(false));
  EXPECT_EQ(adam.step(), 1);
}

TEST(MasterWeightOptimizer, UnscalesByTheScaleTheGradientsHadThoughTheStepGrewIt) {
  TwoParams model;
  // A window of one step: every clean step doubles the scale as it settles.
  MixedPrecision mixed(Precision::kFp16, model.pointers, 2, LossScalerConfig{1024, 1});
  Optimizer sgd({"sgd", 1.0});
  MasterWeightOptimizer optimizer(sgd, mixed);
  mixed.beginBackward();  // the gradients are rounded with 1024
  EXPECT_EQ(mixed.gradientScale(), 1024.0f);
  mixed.beginStep();
  ASSERT_TRUE(optimizer.settleStep(false));
  EXPECT_EQ(mixed.lossScale(), 2048.0f) << "the window of one step grew the scale";
  std::vector<uint16_t> param = {floatToHalf(2.0f)};
  const std::vector<uint16_t> grad = {floatToHalf(512.0f)};  // 0.5, scaled by 1024
  std::vector<float> state(1, 0.0f);
  optimizer.updateLowPrecision(param.data(), grad.data(), state.data(), 1, WeightDecay::kApply);
  EXPECT_FLOAT_EQ(state[0], 1.5f) << "2 - 1.0 x 512 / 1024: divided by the scale the gradient had, not 2048";
}

TEST(LossScaler, ARestoredStateItCouldNotHaveReachedIsRefused) {
  LossScaler scaler;  // hysteresis 2, minimum 1
  EXPECT_THROW(scaler.restore({0.5, 3, -1, 2}), std::invalid_argument) << "below the minimum scale";
  EXPECT_THROW(scaler.restore({1024, 3, -1, 0}), std::invalid_argument) << "no hysteresis left";
  EXPECT_THROW(scaler.restore({1024, 3, -1, 3}), std::invalid_argument) << "more hysteresis than configured";
  EXPECT_THROW(scaler.restore({1024, -1, -1, 2}), std::invalid_argument);
  scaler.restore({1024, 3, 1, 1});
  EXPECT_EQ(scaler.scale(), 1024.0);
}

}  // namespace
}  // namespace dtb::core
