#include "train/gradient_profile.h"

#include <algorithm>

#include "dtbench/plugin.hpp"

namespace dtb::core {

void GradientProfile::beginBackward() {
  counting_ = seen_++ > 0;
  begin_ = std::chrono::steady_clock::now();
}

void GradientProfile::ready(const dtb_param_t& param) {
  if (!counting_) return;
  const double at = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin_).count();
  if (param.index >= sums_.size()) sums_.resize(param.index + 1);
  Sum& sum = sums_[param.index];
  if (sum.count == 0) {
    sum.gradient = {param.index, param.layer, param.name ? param.name : "",
                    param.grad.count * dtypeSize(param.grad.dtype), 0};
  }
  sum.readySum += at;
  ++sum.count;
}

void GradientProfile::endBackward() {
  if (!counting_) return;
  backwardSum_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - begin_).count();
  ++profiled_;
  counting_ = false;
}

std::vector<ReadyGradient> GradientProfile::gradients() const {
  std::vector<ReadyGradient> out;
  for (const Sum& sum : sums_) {
    if (sum.count == 0) continue;
    out.push_back(sum.gradient);
    out.back().readyS = sum.readySum / static_cast<double>(sum.count);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const ReadyGradient& a, const ReadyGradient& b) { return a.readyS < b.readyS; });
  return out;
}

double GradientProfile::backwardS() const {
  return profiled_ > 0 ? backwardSum_ / static_cast<double>(profiled_) : 0;
}

}  // namespace dtb::core
