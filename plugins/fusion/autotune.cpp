#include "autotune.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace dtb::strategy::fusion {
namespace {

// Horovod's search box and test points (threshold MiB, cycle ms); the first
// is where training starts.
const std::vector<std::pair<double, double>> kBounds = {{0, 64}, {1, 100}};
const FusionPoint kTestPoints[] = {{4, 5}, {32, 50}, {16, 25}, {8, 10}};

std::string describe(const FusionPoint& p) {
  char text[96];
  std::snprintf(text, sizeof text, "threshold %.1f MiB, cycle %.1f ms", p.thresholdMb, p.cycleMs);
  return text;
}

std::string scored(double score) {
  char text[48];
  std::snprintf(text, sizeof text, "%.1f steps/s", score);
  return text;
}

}  // namespace

Autotuner::Autotuner(const AutotuneSettings& settings)
    : settings_(settings),
      optimizer_(kBounds, settings.noise),
      current_(kTestPoints[0]),
      warmupsLeft_(settings.warmupPoints) {
  if (settings.samplesPerPoint < 1 || settings.stepsPerSample < 1 || settings.maxPoints < 1 ||
      settings.warmupPoints < 0) {
    throw std::invalid_argument("autotune: samples, steps per sample and points must be at least 1");
  }
}

FusionPoint Autotuner::propose() {
  if (++testPoint_ < std::size(kTestPoints)) return kTestPoints[testPoint_];
  const BayesianOptimizer::Point x = optimizer_.next();
  return {x[0], x[1]};
}

std::string Autotuner::stepBegins(int64_t step, double nowS) {
  if (!active_) return "";
  if (step % settings_.stepsPerSample == 0) windowStartS_.push_back(nowS);
  if (!atBoundary(step)) return "";
  // The point's windows, each as steps per second; the median scores it.
  std::vector<double> windows;
  for (size_t k = 0; k + 1 < windowStartS_.size(); ++k) {
    const double seconds = windowStartS_[k + 1] - windowStartS_[k];
    windows.push_back(seconds > 0 ? settings_.stepsPerSample / seconds : 0.0);
  }
  windowStartS_ = {nowS};
  std::sort(windows.begin(), windows.end());
  const double score = windows.empty() ? 0.0 : windows[windows.size() / 2];
  const FusionPoint measured = current_;
  if (warmupsLeft_ > 0) {
    --warmupsLeft_;
    return "autotune: warm-up at " + describe(measured) + ": " + scored(score) + " (dropped)";
  }
  tried_.push_back({measured, score});
  optimizer_.add({measured.thresholdMb, measured.cycleMs}, score);
  const std::string line =
      "autotune: point " + std::to_string(tried_.size()) + " " + describe(measured) + ": " + scored(score);
  if (tried_.size() > static_cast<size_t>(settings_.maxPoints)) {
    const Tried best = *std::max_element(tried_.begin(), tried_.end(),
                                         [](const Tried& a, const Tried& b) { return a.score < b.score; });
    current_ = best.point;
    active_ = false;
    return line + "; chose " + describe(best.point) + " (" + scored(best.score) + ")";
  }
  current_ = propose();
  return line + "; next " + describe(current_);
}

}  // namespace dtb::strategy::fusion
