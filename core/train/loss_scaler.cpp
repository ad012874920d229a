#include "train/loss_scaler.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace dtb::core {

LossScaler::LossScaler(LossScalerConfig config) : config_(config) {
  auto require = [](bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("loss scaling: ") + what);
  };
  require(std::isfinite(config.initialScale) && config.initialScale > 0, "initial scale must be > 0");
  require(config.window >= 1, "the scale window must be >= 1 step");
  require(config.hysteresis >= 1, "hysteresis must be >= 1");
  require(std::isfinite(config.minScale) && config.minScale > 0, "the minimum scale must be > 0");
  require(config.initialScale >= config.minScale, "the initial scale must be >= the minimum scale");
  require(std::isfinite(config.factor) && config.factor > 1, "the scale factor must be > 1");
  state_.scale = config.initialScale;
  state_.hysteresisLeft = config.hysteresis;
}

void LossScaler::restore(const State& state) {
  auto require = [](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument("loss scaling: a restored " + what);
  };
  require(std::isfinite(state.scale) && state.scale >= config_.minScale,
          "scale of " + std::to_string(state.scale) + " (below the minimum, or not a number)");
  require(state.iteration >= 0 && state.lastOverflow >= -1 && state.lastOverflow < state.iteration + 1,
          "count of updates " + std::to_string(state.iteration) + " with the last overflow at " +
              std::to_string(state.lastOverflow));
  require(state.hysteresisLeft >= 1 && state.hysteresisLeft <= config_.hysteresis,
          "hysteresis of " + std::to_string(state.hysteresisLeft) + " left (1 to " +
              std::to_string(config_.hysteresis) + ")");
  state_ = state;
}

bool LossScaler::update(bool overflow) {
  State& s = state_;
  if (overflow) {
    if (config_.hysteresis == 1 || s.hysteresisLeft == 1) {
      if (s.scale == config_.minScale) {
        throw std::runtime_error("loss scaling: the gradients overflow at the minimum loss scale (" +
                                 std::to_string(config_.minScale) +
                                 "): the model diverges in fp16; lower the learning rate or train in bf16");
      }
      s.scale = std::max(s.scale / config_.factor, config_.minScale);
    } else {
      --s.hysteresisLeft;
    }
    s.lastOverflow = s.iteration;
  } else {
    if (config_.consecutiveHysteresis) s.hysteresisLeft = config_.hysteresis;
    if ((s.iteration - s.lastOverflow) % config_.window == 0) {
      if (!config_.consecutiveHysteresis) s.hysteresisLeft = config_.hysteresis;
      s.scale *= config_.factor;
    }
  }
  ++s.iteration;
  return !overflow;
}

}  // namespace dtb::core
