// Dynamic loss scaling for fp16 training, by DeepSpeed's rules and defaults
// (deepspeed/runtime/fp16/loss_scaler.py, DynamicLossScaler; its config's
// initial_scale_power 16, loss_scale_window 1000, hysteresis 2,
// min_loss_scale 1): the loss is multiplied by the scale before backward so
// small fp16 gradients do not flush to zero; the gradients are divided by
// it before the update. A step whose gradients overflowed (an inf or NaN on
// any rank) is skipped on every rank, and the scale shrinks by the factor
// once `hysteresis` overflows came without a growth in between; after
// `window` steps without an overflow it grows by the factor.
//
// Not wired into training yet: dtbench trains in fp32 (issue 35 adds
// precision = "fp16" on the GPU path and "bf16", which needs no scaling).
#pragma once

#include <cstdint>

namespace dtb::core {

struct LossScalerConfig {
  double initialScale = 65536;  // 2^16
  int64_t window = 1000;        // steps without overflow before the scale grows
  int64_t hysteresis = 2;       // overflows tolerated before the scale shrinks
  double minScale = 1;
  double factor = 2;
  // DeepSpeed's consecutive_hysteresis: a clean step restores the
  // hysteresis at once, not only when the scale grows.
  bool consecutiveHysteresis = false;
};

class LossScaler {
 public:
  // Throws std::invalid_argument for a setting out of range, naming it.
  explicit LossScaler(LossScalerConfig config = {});

  double scale() const { return state_.scale; }

  // After a step's gradients were checked on every rank: `overflow` when
  // any rank found an inf or NaN. Returns whether the step is applied
  // (false: skipped on every rank alike). Throws std::runtime_error when
  // the scale is already at its minimum and the gradients still overflow,
  // as DeepSpeed stops the run there.
  bool update(bool overflow);

  // What a checkpoint or an elastic commit keeps, so a resumed run scales as
  // the uninterrupted one would.
  struct State {
    double scale = 0;
    int64_t iteration = 0;      // updates so far
    int64_t lastOverflow = -1;  // the iteration of the last overflow
    int64_t hysteresisLeft = 0;
  };
  const State& state() const { return state_; }
  // Throws std::invalid_argument, naming the figure, for a state this
  // scaler could not have reached (a corrupt checkpoint).
  void restore(const State& state);

 private:
  LossScalerConfig config_;
  State state_;
};

}  // namespace dtb::core
