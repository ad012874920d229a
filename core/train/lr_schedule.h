// Learning rate per step: linear warm-up, then a per-epoch decay, around the
// (possibly world-size scaled) rate of the run.
//
//   warm-up (warmup_epochs > 0): per step, linearly from `start` to `peak`
//     where peak = lr_effective and start = lr (the unscaled rate, Goyal et
//     al.) with linear scaling; without scaling from 0 (the first step
//     already gets peak / warm-up steps);
//   then, with e = epochs since warm-up ended and E = epochs after warm-up:
//     constant     peak
//     step         peak x step_gamma ^ floor(e / step_epochs)   (StepLR)
//     cosine       peak x (1 + cos(pi e / E)) / 2               (CosineAnnealingLR, eta_min 0)
//     exponential  peak x exp_gamma ^ e                         (ExponentialLR)
#pragma once

#include <cstdint>
#include <string>

namespace dtb::core {

struct LrScheduleConfig {
  std::string kind = "constant";  // constant | step | cosine | exponential
  double lr = 0.01;               // the run's base rate
  double peak = 0.01;             // lr_effective: after linear scaling
  int64_t epochs = 1;
  int64_t warmupEpochs = 0;
  int64_t stepEpochs = 30;
  double stepGamma = 0.1;
  double expGamma = 0.95;
};

class LrSchedule {
 public:
  explicit LrSchedule(LrScheduleConfig config);  // throws std::invalid_argument
  // `epoch` 0-based; `step` 0-based within the epoch of `stepsPerEpoch`.
  double at(int64_t epoch, int64_t step, int64_t stepsPerEpoch) const;

 private:
  LrScheduleConfig config_;
};

}  // namespace dtb::core
