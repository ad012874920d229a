#include "train/lr_schedule.h"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace dtb::core {

LrSchedule::LrSchedule(LrScheduleConfig config) : config_(std::move(config)) {
  const std::string& k = config_.kind;
  if (k != "constant" && k != "step" && k != "cosine" && k != "exponential") {
    throw std::invalid_argument("unknown schedule '" + k + "' (constant, step, cosine, exponential)");
  }
  if (config_.warmupEpochs < 0 || config_.warmupEpochs > config_.epochs) {
    throw std::invalid_argument("warmup_epochs must be between 0 and epochs");
  }
  if (config_.stepEpochs < 1) throw std::invalid_argument("lr_step_epochs must be at least 1");
}

double LrSchedule::at(int64_t epoch, int64_t step, int64_t stepsPerEpoch) const {
  const double peak = config_.peak;
  if (epoch < config_.warmupEpochs) {
    const double total = static_cast<double>(config_.warmupEpochs * stepsPerEpoch);
    const double done = static_cast<double>(epoch * stepsPerEpoch + step + 1);
    if (config_.lr < peak) return config_.lr + (peak - config_.lr) * done / total;  // Goyal et al.
    return peak * done / total;
  }
  const int64_t e = epoch - config_.warmupEpochs;
  if (config_.kind == "step") {
    const int64_t periods = e / config_.stepEpochs;  // whole decay periods: floors on purpose (StepLR)
    return peak * std::pow(config_.stepGamma, static_cast<double>(periods));
  }
  if (config_.kind == "exponential") return peak * std::pow(config_.expGamma, static_cast<double>(e));
  if (config_.kind == "cosine") {
    const double span = static_cast<double>(config_.epochs - config_.warmupEpochs);
    return span <= 0 ? peak : peak * 0.5 * (1.0 + std::cos(std::numbers::pi * static_cast<double>(e) / span));
  }
  return peak;
}

}  // namespace dtb::core
