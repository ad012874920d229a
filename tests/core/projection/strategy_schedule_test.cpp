// Strategy schedules named as a projection takes them: a built-in with
// some of its plugin's parameters set, every mistake named.
#include "projection/strategy_schedule.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace dtb::core {
namespace {

constexpr double kScheduleMiB = 1 << 20;

std::string scheduleErrorOf(const std::string& spec) {
  try {
    parseSchedule(spec);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "parsed: " << spec;
  return "";
}

TEST(StrategySchedule, ABuiltInKeepsItsAnchorsDefaults) {
  const StrategySchedule ddp = parseSchedule("bucketed");
  EXPECT_EQ(ddp.kind, StrategySchedule::Kind::kBucketed);
  EXPECT_EQ(ddp.firstBucketBytes, 1 * kScheduleMiB);
  EXPECT_EQ(ddp.bucketBytes, 25 * kScheduleMiB);
  const StrategySchedule horovod = parseSchedule("fusion");
  EXPECT_EQ(horovod.fusionBytes, 128 * kScheduleMiB);
  EXPECT_DOUBLE_EQ(horovod.cycleS, 1e-3);
  EXPECT_EQ(parseSchedule("zero-2").zeroStage, 2);
}

TEST(StrategySchedule, ParametersAreThePluginsInItsUnits) {
  const StrategySchedule ddp = parseSchedule("bucketed:bucket_cap_mb=5:first_bucket_mb=0.5");
  EXPECT_EQ(ddp.name, "bucketed:bucket_cap_mb=5:first_bucket_mb=0.5");
  EXPECT_EQ(ddp.bucketBytes, 5 * kScheduleMiB);
  EXPECT_EQ(ddp.firstBucketBytes, 0.5 * kScheduleMiB);
  const StrategySchedule legacy = parseSchedule("fusion:preset=horovod-legacy");
  EXPECT_EQ(legacy.fusionBytes, 64 * kScheduleMiB);
  EXPECT_DOUBLE_EQ(legacy.cycleS, 5e-3);
  const StrategySchedule tuned =
      parseSchedule("fusion:fusion_threshold_mb=0:cycle_time_ms=2.5:cache_capacity=0");
  EXPECT_EQ(tuned.fusionBytes, 0);
  EXPECT_DOUBLE_EQ(tuned.cycleS, 2.5e-3);
  EXPECT_EQ(tuned.cacheBitsBytes, 0);
  const StrategySchedule zero3 = parseSchedule("zero-3:prefetch=false:param_persistence_threshold=0");
  EXPECT_FALSE(zero3.prefetch);
  EXPECT_EQ(zero3.persistenceBytes, 0);
  EXPECT_EQ(parseSchedule("zero-1:reduce_bucket_size=1000").reduceBucketBytes, 4000);  // elements of f32
}

TEST(StrategySchedule, MistakesAreNamed) {
  EXPECT_EQ(scheduleErrorOf("ddp"),
            "no schedule for strategy 'ddp'; projected are allreduce, bucketed, fusion, zero-1, "
            "zero-2, zero-3");
  EXPECT_EQ(scheduleErrorOf("bucketed:bucket_cap=5"),
            "'bucketed:bucket_cap=5': bucketed has no parameter 'bucket_cap' in a projection (bucket_cap_mb, "
            "first_bucket_mb; KEY=VALUE)");
  EXPECT_EQ(scheduleErrorOf("bucketed:bucket_cap_mb"),
            "'bucketed:bucket_cap_mb': bucket_cap_mb needs a value (KEY=VALUE)");
  EXPECT_EQ(scheduleErrorOf("allreduce:x=1"),
            "'allreduce:x=1': allreduce has no parameter 'x' in a projection (it takes none; KEY=VALUE)");
  EXPECT_EQ(scheduleErrorOf("fusion:cycle_time_ms=fast"),
            "'fusion:cycle_time_ms=fast': cycle_time_ms = fast is not a number of at least 0.001");
  EXPECT_EQ(scheduleErrorOf("zero-3:prefetch=maybe"),
            "'zero-3:prefetch=maybe': prefetch is true or false, not maybe");
  EXPECT_EQ(scheduleErrorOf("fusion:preset=mpi"),
            "'fusion:preset=mpi': preset is horovod or horovod-legacy, not mpi");
}

}  // namespace
}  // namespace dtb::core
