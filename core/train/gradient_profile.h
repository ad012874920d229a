// When each gradient becomes ready in backward, averaged over a run's
// steps: what a projection needs to schedule a strategy's communication
// against backward (core/projection/step_simulation.h), as DDP launches a
// bucket when its last gradient is ready and Horovod fuses what is ready
// each cycle. The first backward is left out (its allocations and cold
// caches are not the steady state).
//
// The times are the host's clock by default; for a GPU model that reports
// gradients with their work still queued, CUDA events on its stream (the
// step sets that clock: train/backward_clock.h), so a time is when the GPU
// computed the gradient, not when the host heard of it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dtbench/model.h"
#include "train/backward_clock.h"

namespace dtb::core {

struct ReadyGradient {
  uint32_t index = 0;  // the parameter's index (registration order)
  uint32_t layer = 0;  // the layer that uses it
  std::string name;    // "conv1.weight"
  uint64_t bytes = 0;  // the gradient's size
  double readyS = 0;   // seconds after backward began, the mean over the profiled backwards
};

class GradientProfile {
 public:
  // The backwards from now on are timed by `clock` (the sums so far stay).
  void timeOn(std::unique_ptr<BackwardClock> clock) { clock_ = std::move(clock); }

  void beginBackward();
  // `param` stays valid until endBackward (a model's or the host's record).
  void ready(const dtb_param_t& param);
  void endBackward();

  // Every gradient seen, in the order they became ready (by mean time).
  std::vector<ReadyGradient> gradients() const;
  // The mean length of the profiled backwards; 0 before one.
  double backwardS() const;
  int64_t backwards() const { return profiled_; }

 private:
  struct Sum {
    ReadyGradient gradient;
    double readySum = 0;
    int64_t count = 0;
  };
  std::unique_ptr<BackwardClock> clock_ = makeHostClock();
  // This backward's gradients, one clock mark each (the model's or the
  // host's records, which outlive the backward).
  std::vector<const dtb_param_t*> marked_;
  bool counting_ = false;  // this backward is profiled (not the first)
  int64_t seen_ = 0;       // backwards begun
  int64_t profiled_ = 0;
  double backwardSum_ = 0;
  std::vector<Sum> sums_;  // by parameter index
};

}  // namespace dtb::core
