// The loss scaler step by step against DeepSpeed's DynamicLossScaler rules
// (update_scale): growth after `window` clean steps counted from the last
// overflow, hysteresis before a shrink, the minimum scale.
#include "train/loss_scaler.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace dtb::core {
namespace {

TEST(LossScaler, DeepSpeedsDefaultsGrowAfterAThousandCleanSteps) {
  LossScaler scaler;
  EXPECT_EQ(scaler.scale(), 65536.0);
  for (int i = 0; i < 999; ++i) ASSERT_TRUE(scaler.update(false));
  EXPECT_EQ(scaler.scale(), 65536.0) << "grew before the window";
  EXPECT_TRUE(scaler.update(false));  // the 1000th clean step
  EXPECT_EQ(scaler.scale(), 131072.0);
  for (int i = 0; i < 999; ++i) scaler.update(false);
  EXPECT_EQ(scaler.scale(), 131072.0);
  scaler.update(false);
  EXPECT_EQ(scaler.scale(), 262144.0);
}

TEST(LossScaler, AnOverflowSkipsTheStepAndTheSecondHalvesTheScale) {
  LossScaler scaler;  // hysteresis 2
  EXPECT_FALSE(scaler.update(true)) << "an overflowing step is skipped";
  EXPECT_EQ(scaler.scale(), 65536.0) << "the first overflow only uses up the hysteresis";
  EXPECT_FALSE(scaler.update(true));
  EXPECT_EQ(scaler.scale(), 32768.0);
  EXPECT_FALSE(scaler.update(true));  // the hysteresis is not back: halved again
  EXPECT_EQ(scaler.scale(), 16384.0);
  // The window counts from the last overflow (update 3): 1000 clean steps.
  for (int i = 0; i < 999; ++i) ASSERT_TRUE(scaler.update(false));
  EXPECT_EQ(scaler.scale(), 16384.0);
  scaler.update(false);
  EXPECT_EQ(scaler.scale(), 32768.0);
  // ... and the growth gave the hysteresis back: one overflow is tolerated.
  EXPECT_FALSE(scaler.update(true));
  EXPECT_EQ(scaler.scale(), 32768.0);
}

TEST(LossScaler, CleanStepsRestoreTheHysteresisOnlyWhenConsecutive) {
  LossScaler deepspeed;  // consecutive_hysteresis = false, DeepSpeed's default
  deepspeed.update(true);
  for (int i = 0; i < 10; ++i) deepspeed.update(false);
  deepspeed.update(true);
  EXPECT_EQ(deepspeed.scale(), 32768.0) << "clean steps short of the window kept the hysteresis used up";

  LossScalerConfig config;
  config.consecutiveHysteresis = true;
  LossScaler consecutive(config);
  consecutive.update(true);
  consecutive.update(false);
  consecutive.update(true);
  EXPECT_EQ(consecutive.scale(), 65536.0) << "one clean step gave the hysteresis back";
}

TEST(LossScaler, TheScaleStopsAtItsMinimumAndAnOverflowThereEndsTheRun) {
  LossScalerConfig config;
  config.initialScale = 4;
  config.minScale = 2;
  config.hysteresis = 1;
  config.factor = 4;
  LossScaler scaler(config);
  scaler.update(true);
  EXPECT_EQ(scaler.scale(), 2.0) << "4 / 4 is below the minimum: the minimum";
  try {
    scaler.update(true);
    FAIL() << "an overflow at the minimum scale went on";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("minimum loss scale"), std::string::npos) << e.what();
  }
}

TEST(LossScaler, ARestoredScalerGoesOnAsTheUninterruptedOne) {
  LossScaler a;
  a.update(true);
  for (int i = 0; i < 400; ++i) a.update(false);
  LossScaler b;
  b.restore(a.state());
  for (int i = 0; i < 1200; ++i) {
    const bool overflow = i == 700;
    ASSERT_EQ(a.update(overflow), b.update(overflow));
    ASSERT_EQ(a.scale(), b.scale()) << "after update " << i;
  }
}

TEST(LossScaler, SettingsOutOfRangeAreRefusedByName) {
  auto refused = [](LossScalerConfig c, const char* word) {
    try {
      LossScaler scaler(c);
      ADD_FAILURE() << "accepted; expected a refusal naming " << word;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(word), std::string::npos) << e.what();
    }
  };
  LossScalerConfig c;
  c.window = 0;
  refused(c, "window");
  c = {};
  c.factor = 1;
  refused(c, "factor");
  c = {};
  c.initialScale = 0.5;
  refused(c, "initial scale");
  c = {};
  c.hysteresis = 0;
  refused(c, "hysteresis");
}

}  // namespace
}  // namespace dtb::core
