// Fusion's autotune, apart from training: the Bayesian optimiser finds the
// top of known score surfaces, and the schedule warms up, walks Horovod's
// test points, proposes, and keeps the best point it scored.
#include <gtest/gtest.h>

#include <cmath>

#include "autotune.h"
#include "bayesian_optimizer.h"

namespace dtb::strategy::fusion {
namespace {

// A smooth score over Horovod's box with its top at (20 MiB, 12 ms).
double bowl(double thresholdMb, double cycleMs) {
  const double a = (thresholdMb - 20) / 64, b = (cycleMs - 12) / 99;
  return 1000 * std::exp(-(a * a + b * b) / (2 * 0.15 * 0.15));
}

TEST(BayesianOptimizer, FindsTheTopOfASmoothSurfaceInAFewDozenScores) {
  BayesianOptimizer optimizer({{0, 64}, {1, 100}}, 0.01);
  for (const auto& [t, c] : {std::pair{4.0, 5.0}, {32.0, 50.0}, {16.0, 25.0}, {8.0, 10.0}})
    optimizer.add({t, c}, bowl(t, c));
  double best = 0;
  for (int i = 0; i < 20; ++i) {
    const BayesianOptimizer::Point x = optimizer.next();
    ASSERT_GE(x[0], 0);
    ASSERT_LE(x[0], 64);
    ASSERT_GE(x[1], 1);
    ASSERT_LE(x[1], 100);
    best = std::max(best, bowl(x[0], x[1]));
    optimizer.add(x, bowl(x[0], x[1]));
  }
  EXPECT_GT(best, 950);  // within ~5 % of the top, which no starting point was near (best of them: 626)
  // The fitted mean agrees with the surface where it was sampled densely.
  const auto [mean, deviation] = optimizer.predict({20, 12});
  EXPECT_NEAR(mean, 1000, 100);
  EXPECT_LT(deviation, 100);
}

TEST(BayesianOptimizer, ProposesWhereItHasNotLookedWhenEverythingScoresAlike) {
  BayesianOptimizer optimizer({{0, 64}, {1, 100}});
  optimizer.add({4, 5}, 10);
  optimizer.add({8, 10}, 10);
  const BayesianOptimizer::Point x = optimizer.next();
  EXPECT_GT(std::hypot((x[0] - 6) / 64, (x[1] - 7.5) / 99), 0.2);  // away from both samples
}

// Drives the schedule with a clock where each step takes 1 / score(point) s.
struct Drive {
  Autotuner tuner;
  double now = 0;
  int64_t step = 0;
  std::vector<std::string> lines;
  void steps(int64_t n) {
    for (int64_t i = 0; i < n; ++i, ++step) {
      const std::string line = tuner.stepBegins(step, now);
      if (!line.empty()) lines.push_back(line);
      now += 1.0 / bowl(tuner.current().thresholdMb, tuner.current().cycleMs);
    }
  }
};

TEST(Autotune, WarmsUpWalksHorovodsTestPointsThenKeepsTheBestItScored) {
  AutotuneSettings settings;
  settings.warmupPoints = 2;
  settings.stepsPerSample = 3;
  settings.maxPoints = 8;
  Drive drive{Autotuner(settings)};
  const int64_t point = drive.tuner.stepsPerPoint();
  EXPECT_EQ(point, 15);        // 5 windows of 3 steps
  drive.steps(2 * point + 1);  // the two warm-ups end at the boundaries of steps 15 and 30
  ASSERT_EQ(drive.lines.size(), 2u);
  EXPECT_NE(drive.lines[0].find("warm-up at threshold 4.0 MiB, cycle 5.0 ms"), std::string::npos)
      << drive.lines[0];
  EXPECT_TRUE(drive.tuner.tried().empty());
  drive.steps(4 * point);  // Horovod's four test points, in order
  ASSERT_EQ(drive.tuner.tried().size(), 4u);
  EXPECT_EQ(drive.tuner.tried()[1].point.thresholdMb, 32);
  EXPECT_EQ(drive.tuner.tried()[3].point.cycleMs, 10);
  // Each score is steps per second at that point, as the clock made it.
  EXPECT_NEAR(drive.tuner.tried()[0].score, bowl(4, 5), 1e-6 * bowl(4, 5));
  while (drive.tuner.active()) drive.steps(1);
  ASSERT_EQ(drive.tuner.tried().size(), 9u);  // maxPoints + 1 scored
  double best = 0;
  FusionPoint bestPoint;
  for (const Autotuner::Tried& t : drive.tuner.tried()) {
    if (t.score > best) best = t.score, bestPoint = t.point;
  }
  EXPECT_EQ(drive.tuner.current().thresholdMb, bestPoint.thresholdMb);
  EXPECT_EQ(drive.tuner.current().cycleMs, bestPoint.cycleMs);
  EXPECT_GT(best, bowl(8, 10));  // the proposals beat every test point
  EXPECT_NE(drive.lines.back().find("chose"), std::string::npos) << drive.lines.back();
  EXPECT_FALSE(drive.tuner.atBoundary(drive.step + point));  // no more broadcasts once done
}

}  // namespace
}  // namespace dtb::strategy::fusion
