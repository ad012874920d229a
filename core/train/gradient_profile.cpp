#include "train/gradient_profile.h"

#include <algorithm>

#include "dtbench/plugin.hpp"

namespace dtb::core {

void GradientProfile::beginBackward() {
  counting_ = seen_++ > 0;
  marked_.clear();
  if (counting_) clock_->begin();
}

void GradientProfile::ready(const dtb_param_t& param) {
  if (!counting_) return;
  marked_.push_back(&param);
  clock_->mark();
}

void GradientProfile::endBackward() {
  if (!counting_) return;
  counting_ = false;
  clock_->mark();
  const std::vector<double> at = clock_->read();
  if (at.size() != marked_.size() + 1) return;  // a clock that lost marks: this backward is not profiled
  for (size_t i = 0; i < marked_.size(); ++i) {
    const dtb_param_t& param = *marked_[i];
    if (param.index >= sums_.size()) sums_.resize(param.index + 1);
    Sum& sum = sums_[param.index];
    if (sum.count == 0) {
      sum.gradient = {param.index, param.layer, param.name ? param.name : "",
                      param.grad.count * dtypeSize(param.grad.dtype), 0};
    }
    sum.readySum += at[i];
    ++sum.count;
  }
  backwardSum_ += at.back();
  ++profiled_;
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
