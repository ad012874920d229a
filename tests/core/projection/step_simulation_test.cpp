// The step simulation against schedules worked out by hand: costs of 1 ms
// per MiB on every collective, so each case's timeline can be read off
// the comments.
#include "projection/step_simulation.h"

#include <gtest/gtest.h>

namespace dtb::core {
namespace {

constexpr double kMiB = 1 << 20;
constexpr double kMs = 1e-3;

// Every collective 1 ms per MiB of its array.
CollectiveCosts perMiB() {
  auto ms = [](double bytes) { return bytes / kMiB * kMs; };
  return {ms, ms, ms};
}

CollectiveCosts free() {
  auto none = [](double) { return 0.0; };
  return {none, none, none};
}

// Data 1 ms, forward 2, backward 3 (gradients of `mib` MiB each, ready at
// the given ms), optimizer 4, loop 0.
StepProfile profile(const std::vector<std::pair<double, double>>& readyMsAndMib) {
  StepProfile p;
  p.dataS = 1 * kMs;
  p.forwardS = 2 * kMs;
  p.backwardS = 3 * kMs;
  p.optimizerS = 4 * kMs;
  p.samplesPerStep = 32;
  int64_t param = 0;
  for (const auto& [readyMs, mib] : readyMsAndMib)
    p.gradients.push_back({param, param, mib * kMiB, readyMs * kMs}), ++param;
  return p;
}

StrategySchedule named(const std::string& name) {
  for (const StrategySchedule& s : builtInSchedules())
    if (s.name == name) return s;
  ADD_FAILURE() << "no schedule " << name;
  return {};
}

constexpr double kCompute = 10 * kMs;  // data + forward + backward + optimizer

TEST(StepSimulation, TheBaselineAllReducesEveryGradientAfterBackward) {
  // 1 + 1 + 2 MiB after backward: 4 ms, all exposed.
  const SimulatedStep s = simulateStep(profile({{1, 1}, {2, 1}, {3, 2}}), named("allreduce"), perMiB(), 4);
  EXPECT_NEAR(s.commS, 4 * kMs, 1e-12);
  EXPECT_NEAR(s.exposedS, 4 * kMs, 1e-12);
  EXPECT_NEAR(s.stepS, kCompute + 4 * kMs, 1e-12);
}

TEST(StepSimulation, DdpLaunchesEachBucketWhenItsLastGradientIsReady) {
  // First bucket (1 MiB cap): the gradient ready at 1 ms, all-reduced 1-2 ms.
  // Second (25 MiB): the two ready at 2 and 3 ms, 3 MiB from 3 ms to 6 ms:
  // 3 ms after backward.
  const SimulatedStep s = simulateStep(profile({{1, 1}, {2, 1}, {3, 2}}), named("bucketed"), perMiB(), 4);
  EXPECT_NEAR(s.commS, 4 * kMs, 1e-12);
  EXPECT_NEAR(s.exposedS, 3 * kMs, 1e-12);
  EXPECT_NEAR(s.stepS, kCompute + 3 * kMs, 1e-12);
}

TEST(StepSimulation, DdpBucketsWaitForTheOnesBeforeThem) {
  // Caps of 1 MiB: three buckets ready at 0.5, 1 and 1.5 ms, 1 ms each,
  // one stream: 0.5-1.5, 1.5-2.5, 2.5-3.5: half a ms after backward.
  StrategySchedule ddp = named("bucketed");
  ddp.bucketBytes = kMiB;
  const SimulatedStep s = simulateStep(profile({{0.5, 1}, {1, 1}, {1.5, 1}}), ddp, perMiB(), 4);
  EXPECT_NEAR(s.exposedS, 0.5 * kMs, 1e-12);
}

TEST(StepSimulation, HorovodReducesWhatWasReadyWhenACycleBegan) {
  // Cycles of 1 ms, the cache's agreement free: at 1 ms the gradient ready
  // at 0.5 (1-2 ms); the next cycle at 2 ms (the last one ran until then)
  // takes the one ready at 1.5 (2-3 ms): exposed 0, the stream ends with
  // backward at 3 ms.
  StrategySchedule horovod = named("fusion");
  horovod.cacheBitsBytes = 0;
  SimulatedStep s = simulateStep(profile({{0.5, 1}, {1.5, 1}}), horovod, perMiB(), 4);
  EXPECT_NEAR(s.exposedS, 0, 1e-12);
  // Ready at 2.9 ms: the cycle at 3 ms (after 1 and 2) reduces it by 4 ms.
  s = simulateStep(profile({{2.9, 1}}), horovod, perMiB(), 4);
  EXPECT_NEAR(s.exposedS, 1 * kMs, 1e-12);
}

TEST(StepSimulation, HorovodFusesGreedilyWithinTheThreshold) {
  // Three 1 MiB gradients ready together; the cycle that finds them costs
  // 3 ms of all-reduces in any split, but each all-reduce pays the cost of
  // an agreement-free call: count them by a cost with a fixed part.
  int calls = 0;
  CollectiveCosts counting = perMiB();
  counting.allreduceS = [&calls](double bytes) {
    ++calls;
    return bytes / kMiB * kMs;
  };
  StrategySchedule horovod = named("fusion");
  horovod.cacheBitsBytes = 0;
  horovod.fusionBytes = 2 * kMiB;  // [1 + 1], [1]
  simulateStep(profile({{0.1, 1}, {0.2, 1}, {0.3, 1}}), horovod, counting, 4);
  EXPECT_EQ(calls, 1 + 2);  // one agreement, two batches
  calls = 0;
  horovod.fusionBytes = 0;  // fusion off: each alone
  simulateStep(profile({{0.1, 1}, {0.2, 1}, {0.3, 1}}), horovod, counting, 4);
  EXPECT_EQ(calls, 1 + 3);
}

TEST(StepSimulation, ZeroStageOneReducesAfterBackwardAndGathersAfterItsShareOfTheUpdate) {
  // Reduce-scatter of 2 MiB from 3 to 5 ms, a quarter of the 4 ms update
  // (5-6), all-gather of 2 MiB (6-8): 4 ms exposed, 1 ms of optimizer.
  const SimulatedStep s = simulateStep(profile({{1, 1}, {3, 1}}), named("zero-1"), perMiB(), 4);
  EXPECT_NEAR(s.exposedS, 4 * kMs, 1e-12);
  EXPECT_NEAR(s.stepS, 1 * kMs + 2 * kMs + 3 * kMs + 4 * kMs + 1 * kMs, 1e-12);
}

TEST(StepSimulation, ZeroStageTwoReducesBucketsDuringBackward) {
  // Reduce buckets of 1 MiB: the first reduced 1-2 ms inside backward, the
  // second 3-4: 1 ms exposed before the update, 2 ms of gathers after it.
  StrategySchedule zero2 = named("zero-2");
  zero2.reduceBucketBytes = kMiB;
  const SimulatedStep s = simulateStep(profile({{1, 1}, {3, 1}}), zero2, perMiB(), 4);
  EXPECT_NEAR(s.exposedS, 1 * kMs + 2 * kMs, 1e-12);
}

TEST(StepSimulation, ZeroStageThreeGathersEveryLayerTwiceAndPrefetchHidesSome) {
  // Two layers of 1 MiB (gradients ready at 1 and 3 ms of a 3 ms backward:
  // backward computes 1 and 2 ms, forward 2/3 and 4/3 ms, in reverse).
  const StepProfile p = profile({{1, 1}, {3, 1}});
  StrategySchedule zero3 = named("zero-3");
  zero3.persistenceBytes = 0;
  const SimulatedStep prefetching = simulateStep(p, zero3, perMiB(), 4);
  // With prefetch, forward: gather 0-1, the next gather 1-2 while the first
  // layer computes 1-7/3, the second 7/3-3: 1 ms over. Backward: gather
  // 0-1, the next 1-2 while the first computes 1-2, its reduce-scatter 2-3
  // while the second computes 2-4, the last reduce-scatter 4-5: 2 ms over.
  EXPECT_NEAR(prefetching.exposedS, 1 * kMs + 2 * kMs, 1e-12);
  // 2 gathers in forward, 2 in backward, 2 reduce-scatters: 6 MiB moved.
  EXPECT_NEAR(prefetching.commS, 6 * kMs, 1e-12);
  zero3.prefetch = false;
  const SimulatedStep waiting = simulateStep(p, zero3, perMiB(), 4);
  EXPECT_NEAR(waiting.commS, 6 * kMs, 1e-12);
  EXPECT_LT(prefetching.exposedS, waiting.exposedS);
  // Without prefetch nothing overlaps a gather. Forward: gather 0-1 ms,
  // compute 1-7/3, gather 7/3-10/3, compute to 4: 2 ms over forward's 2.
  // Backward: gather 0-1, compute 1-2, then on the one stream the
  // reduce-scatter 2-3 before the next gather 3-4, compute 4-6, the last
  // reduce-scatter 6-7: 4 ms over backward's 3.
  EXPECT_NEAR(waiting.exposedS, 2 * kMs + 4 * kMs, 1e-12);
  // Layers under the persistence threshold stay whole: no gathers in the
  // passes, but after the step each layer's updated slices are all-gathered
  // (DeepSpeed's _post_step), exposed: 2 reduce-scatters and 2 gathers.
  zero3.persistenceBytes = 2 * kMiB;
  const SimulatedStep persistent = simulateStep(p, zero3, perMiB(), 4);
  EXPECT_NEAR(persistent.commS, 4 * kMs, 1e-12);
  // Backward: computes 1 and 2 ms, reduce-scatters 1-2 and 3-4 (1 ms
  // over), then the 2 gathers after the step.
  EXPECT_NEAR(persistent.exposedS, 1 * kMs + 2 * kMs, 1e-12);
  // The threshold is a layer's, as the plugin's: a layer of a 1.5 MiB weight
  // and a 0.25 MiB bias is gathered whole (twice) and reduced, its bias
  // not left whole to be gathered after the step: 3 x 1.75 MiB.
  StepProfile layer = profile({{3, 1.5}});
  layer.gradients.push_back({1, 0, 0.25 * kMiB, 3 * kMs});
  zero3.persistenceBytes = kMiB;
  EXPECT_NEAR(simulateStep(layer, zero3, perMiB(), 4).commS, 3 * 1.75 * kMs, 1e-12);
}

TEST(StepSimulation, OneGpuIsTheMeasuredStepForEveryStrategyButHorovodsCycle) {
  const StepProfile p = profile({{1, 1}, {2, 1}, {3, 2}});
  for (const StrategySchedule& s : builtInSchedules()) {
    const SimulatedStep step = simulateStep(p, s, free(), 1);
    if (s.name == "fusion") {
      // The last gradient, ready at 3 ms, waits for the cycle at 3 ms.
      EXPECT_NEAR(step.exposedS, 0, 1e-12) << s.name;
    } else {
      EXPECT_NEAR(step.stepS, kCompute, 1e-12) << s.name;
      EXPECT_NEAR(step.exposedS, 0, 1e-12) << s.name;
    }
  }
}

TEST(StepSimulation, AFasterDeviceShrinksComputeAndKeepsTheReadyShares) {
  const StepProfile p = profile({{1, 1}, {3, 1}}).onFasterDevice(2);
  EXPECT_NEAR(p.backwardS, 1.5 * kMs, 1e-12);
  EXPECT_NEAR(p.gradients[0].readyS, 0.5 * kMs, 1e-12);
  EXPECT_NEAR(p.dataS, 1 * kMs, 1e-12);  // the host's data loading stays
}

}  // namespace
}  // namespace dtb::core
