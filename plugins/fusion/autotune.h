// Horovod's autotune of tensor fusion (horovod/common/parameter_manager.cc):
// the fusion threshold (0-64 MiB) and the cycle time (1-100 ms) are tried
// point by point during training and then fixed at the best.
//   - A point is measured over `samplesPerPoint` windows of `stepsPerSample`
//     steps; its score is the median window's (Horovod: 5 windows of 10).
//   - The first `warmupPoints` scores are dropped (Horovod: 3), with the
//     first test point in use.
//   - Then Horovod's four test points (4 MiB / 5 ms, 32 / 50, 16 / 25,
//     8 / 10), then points the Bayesian optimiser proposes, until
//     `maxPoints` + 1 are scored (Horovod: 20); then the best scored point
//     stays for the rest of the run.
// The score is steps per second (samples/s over the fixed global batch:
// what a user tunes for), where Horovod scores the bytes its all-reduces
// move per microsecond. Only rank 0 scores and decides; every rank calls
// atBoundary() with the same step count, and rank 0's decision reaches the
// others by a broadcast (fusion_strategy.cpp), as Horovod's SyncParams.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bayesian_optimizer.h"

namespace dtb::strategy::fusion {

struct FusionPoint {
  double thresholdMb = 0;
  double cycleMs = 0;
};

struct AutotuneSettings {
  int warmupPoints = 3;
  int samplesPerPoint = 5;
  int stepsPerSample = 10;
  int maxPoints = 20;
  double noise = 0.2;
};

class Autotuner {
 public:
  explicit Autotuner(const AutotuneSettings& settings);

  bool active() const { return active_; }
  // The point to train with now: the one being tried, or the best once done.
  FusionPoint current() const { return current_; }
  // Steps between two decisions (every rank broadcasts there while active).
  int64_t stepsPerPoint() const {
    return static_cast<int64_t>(settings_.samplesPerPoint) * settings_.stepsPerSample;
  }
  // Whether the step about to begin ends a point (all ranks alike).
  bool atBoundary(int64_t step) const { return active_ && step > 0 && step % stepsPerPoint() == 0; }

  // Rank 0: a step begins at `nowS` (any clock, seconds). At a boundary it
  // scores the point just measured and moves on; returns a line saying so
  // ("" otherwise) for the run's events.
  std::string stepBegins(int64_t step, double nowS);
  // The other ranks: what rank 0 decided.
  void adopt(const FusionPoint& point, bool active) {
    current_ = point;
    active_ = active;
  }

  struct Tried {
    FusionPoint point;
    double score;  // steps per second
  };
  const std::vector<Tried>& tried() const { return tried_; }

 private:
  FusionPoint propose();

  AutotuneSettings settings_;
  BayesianOptimizer optimizer_;
  bool active_ = true;
  FusionPoint current_;
  int warmupsLeft_;
  size_t testPoint_ = 0;              // the next of Horovod's test points
  std::vector<double> windowStartS_;  // this point's window starts, and the end of its last
  std::vector<Tried> tried_;
};

}  // namespace dtb::strategy::fusion
