#include "loss.h"

#include <cmath>

namespace dtb::nn {

namespace {
double target(int64_t c, int32_t label, int64_t classes, double smoothing) {
  return (c == label ? 1.0 - smoothing : 0.0) + smoothing / static_cast<double>(classes);
}
}  // namespace

LossResult crossEntropyForward(const float* logits, const int32_t* labels, int64_t n, int64_t classes,
                               double labelSmoothing, std::vector<float>& probabilities) {
  LossResult result;
  probabilities.resize(static_cast<size_t>(n * classes));
  double total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float* z = logits + i * classes;
    int64_t best = 0;
    for (int64_t c = 1; c < classes; ++c) {
      if (z[c] > z[best]) best = c;
    }
    if (best == labels[i]) ++result.correct;
    double sum = 0;
    for (int64_t c = 0; c < classes; ++c) sum += std::exp(double(z[c]) - z[best]);
    const double logSum = std::log(sum) + z[best];
    for (int64_t c = 0; c < classes; ++c) {
      const double logp = z[c] - logSum;
      total -= target(c, labels[i], classes, labelSmoothing) * logp;
      probabilities[i * classes + c] = static_cast<float>(std::exp(logp));
    }
  }
  result.loss = n > 0 ? total / static_cast<double>(n) : 0.0;
  return result;
}

void crossEntropyBackward(const std::vector<float>& probabilities, const int32_t* labels, int64_t n,
                          int64_t classes, double labelSmoothing, float* dlogits) {
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t c = 0; c < classes; ++c) {
      dlogits[i * classes + c] = static_cast<float>(
          (probabilities[i * classes + c] - target(c, labels[i], classes, labelSmoothing)) /
          static_cast<double>(n));
    }
  }
}

}  // namespace dtb::nn
