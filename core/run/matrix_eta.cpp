#include "run/matrix_eta.h"

#include <algorithm>

namespace dtb::core {

void MatrixEta::finished(size_t index, double seconds) {
  const Run& r = runs_.at(index);
  const double perEpoch = seconds / static_cast<double>(std::max<int64_t>(r.epochs, 1));
  for (Mean* m : {&byModelAndWorld_[{r.model, r.worldSize}], &byModel_[r.model], &all_}) {
    m->sum += perEpoch;
    ++m->n;
  }
}

std::optional<double> MatrixEta::expected(size_t i, const Run* current,
                                          std::optional<double> currentRate) const {
  const Run& r = runs_[i];
  std::optional<double> rate;
  if (auto it = byModelAndWorld_.find({r.model, r.worldSize}); it != byModelAndWorld_.end())
    rate = it->second.value();
  if (auto it = byModel_.find(r.model); !rate && it != byModel_.end()) rate = it->second.value();
  // The first run of a model: its pace so far says more than other models'.
  if (!rate && current && current->model == r.model) rate = currentRate;
  if (!rate) rate = all_.value();
  if (!rate) return std::nullopt;
  return *rate * static_cast<double>(std::max<int64_t>(r.epochs, 1));
}

std::optional<double> MatrixEta::remaining(size_t current, double fraction, double elapsed) const {
  if (current >= runs_.size()) return 0.0;
  // The run in progress: its own pace once it has gone some way, else its
  // expected duration.
  const Run& now = runs_[current];
  std::optional<double> left, rate;
  if (fraction >= 0.05) {
    left = elapsed / fraction - elapsed;
    rate = elapsed / fraction / static_cast<double>(std::max<int64_t>(now.epochs, 1));
  } else if (std::optional<double> e = expected(current, nullptr, std::nullopt)) {
    left = std::max(0.0, *e - elapsed);
  }
  if (!left) return std::nullopt;
  double total = *left;
  for (size_t i = current + 1; i < runs_.size(); ++i) {
    const std::optional<double> e = expected(i, &now, rate);
    if (!e) return std::nullopt;
    total += *e;
  }
  return total;
}

}  // namespace dtb::core
