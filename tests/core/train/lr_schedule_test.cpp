// Learning-rate schedules: warm-up, then PyTorch's per-epoch decays.
#include "train/lr_schedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace dtb::core {
namespace {

LrScheduleConfig config(const std::string& kind, int64_t epochs, int64_t warmup = 0) {
  LrScheduleConfig c;
  c.kind = kind;
  c.lr = 0.1;
  c.peak = 0.1;
  c.epochs = epochs;
  c.warmupEpochs = warmup;
  return c;
}

TEST(LrSchedule, Constant) {
  LrSchedule s(config("constant", 3));
  EXPECT_DOUBLE_EQ(s.at(0, 0, 10), 0.1);
  EXPECT_DOUBLE_EQ(s.at(2, 9, 10), 0.1);
}

TEST(LrSchedule, StepDecaysEveryStepEpochs) {
  LrScheduleConfig c = config("step", 90);
  c.stepEpochs = 30;
  LrSchedule s(c);
  EXPECT_DOUBLE_EQ(s.at(29, 0, 1), 0.1);
  EXPECT_NEAR(s.at(30, 0, 1), 0.01, 1e-12);
  EXPECT_NEAR(s.at(60, 0, 1), 0.001, 1e-12);
}

TEST(LrSchedule, ExponentialWithTheAnchorsGamma) {
  LrSchedule s(config("exponential", 10));
  EXPECT_NEAR(s.at(3, 0, 1), 0.1 * std::pow(0.95, 3), 1e-12);
}

TEST(LrSchedule, CosineAnnealsToZero) {
  LrSchedule s(config("cosine", 10));
  EXPECT_DOUBLE_EQ(s.at(0, 0, 1), 0.1);
  EXPECT_NEAR(s.at(5, 0, 1), 0.05, 1e-12);
  EXPECT_NEAR(s.at(9, 0, 1), 0.1 * 0.5 * (1 + std::cos(std::numbers::pi * 0.9)), 1e-12);
}

TEST(LrSchedule, GoyalWarmupRampsFromTheUnscaledRate) {
  LrScheduleConfig c = config("constant", 10, 5);
  c.lr = 0.1;
  c.peak = 0.8;  // 8 ranks, linear scaling
  LrSchedule s(c);
  EXPECT_NEAR(s.at(0, 0, 100), 0.1 + 0.7 * 1.0 / 500, 1e-12);
  EXPECT_NEAR(s.at(4, 99, 100), 0.8, 1e-12);  // the last warm-up step reaches the peak
  EXPECT_DOUBLE_EQ(s.at(5, 0, 100), 0.8);
}

TEST(LrSchedule, WarmupWithoutScalingStartsNearZero) {
  LrSchedule s(config("cosine", 4, 1));
  EXPECT_NEAR(s.at(0, 0, 10), 0.01, 1e-12);  // 1/10 of the way
  EXPECT_DOUBLE_EQ(s.at(1, 0, 10), 0.1);     // cosine starts after warm-up
}

TEST(LrSchedule, RejectsBadConfigurations) {
  EXPECT_THROW(LrSchedule(config("linear", 3)), std::invalid_argument);
  EXPECT_THROW(LrSchedule(config("constant", 3, 4)), std::invalid_argument);
}

}  // namespace
}  // namespace dtb::core
