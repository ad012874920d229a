#include "batch_norm.h"

#include <cmath>

namespace dtb::nn {

BatchNorm2d::BatchNorm2d(int64_t channels, Parameter& weight, Parameter& bias, double eps, double momentum)
    : channels_(channels),
      weight_(weight),
      bias_(bias),
      eps_(eps),
      momentum_(momentum),
      runningMean_(static_cast<size_t>(channels), 0.0f),
      runningVar_(static_cast<size_t>(channels), 1.0f),
      mean_(static_cast<size_t>(channels)),
      invStd_(static_cast<size_t>(channels)) {}

void BatchNorm2d::forward(const float* x, int64_t n, int64_t h, int64_t w, bool training, float* y) {
  const int64_t plane = h * w, c = channels_;
  const float* gamma = weight_.value();
  const float* beta = bias_.value();
  if (training) {
    n_ = n;
    planeSize_ = plane;
  }
  const double m = static_cast<double>(n * plane);
#pragma omp parallel for
  for (int64_t ch = 0; ch < c; ++ch) {
    double mean = runningMean_[ch], invStd = 1.0 / std::sqrt(runningVar_[ch] + eps_);
    if (training) {
      // Float sums within a plane (vectorised), double across planes.
      double sum = 0, squares = 0;
      for (int64_t s = 0; s < n; ++s) {
        const float* in = x + (s * c + ch) * plane;
        float partial = 0;
#pragma omp simd reduction(+ : partial)
        for (int64_t i = 0; i < plane; ++i) partial += in[i];
        sum += partial;
      }
      mean = sum / m;
      const float mf = static_cast<float>(mean);
      for (int64_t s = 0; s < n; ++s) {
        const float* in = x + (s * c + ch) * plane;
        float partial = 0;
#pragma omp simd reduction(+ : partial)
        for (int64_t i = 0; i < plane; ++i) partial += (in[i] - mf) * (in[i] - mf);
        squares += partial;
      }
      const double variance = squares / m;  // biased: what normalises
      invStd = 1.0 / std::sqrt(variance + eps_);
      mean_[ch] = mean;
      invStd_[ch] = invStd;
      const double unbiased = m > 1 ? squares / (m - 1) : variance;
      runningMean_[ch] = static_cast<float>((1 - momentum_) * runningMean_[ch] + momentum_ * mean);
      runningVar_[ch] = static_cast<float>((1 - momentum_) * runningVar_[ch] + momentum_ * unbiased);
    }
    const float scale = static_cast<float>(gamma[ch] * invStd),
                shift = static_cast<float>(beta[ch] - mean * scale);
    for (int64_t s = 0; s < n; ++s) {
      const float* in = x + (s * c + ch) * plane;
      float* out = y + (s * c + ch) * plane;
#pragma omp simd
      for (int64_t i = 0; i < plane; ++i) out[i] = in[i] * scale + shift;
    }
  }
}

void BatchNorm2d::backward(const float* x, const float* dy, float* dx) {
  const int64_t n = n_, plane = planeSize_, c = channels_;
  const float* gamma = weight_.value();
  float* dgamma = weight_.grad();
  float* dbeta = bias_.grad();
  const double m = static_cast<double>(n * plane);
#pragma omp parallel for
  for (int64_t ch = 0; ch < c; ++ch) {
    const double mean = mean_[ch], invStd = invStd_[ch];
    double sumDy = 0, sumDyXhat = 0;
    const float mf = static_cast<float>(mean);
    for (int64_t s = 0; s < n; ++s) {
      const float* in = x + (s * c + ch) * plane;
      const float* d = dy + (s * c + ch) * plane;
      float partialDy = 0, partialDyX = 0;
#pragma omp simd reduction(+ : partialDy, partialDyX)
      for (int64_t i = 0; i < plane; ++i) {
        partialDy += d[i];
        partialDyX += d[i] * (in[i] - mf);
      }
      sumDy += partialDy;
      sumDyXhat += partialDyX * invStd;
    }
    dgamma[ch] = static_cast<float>(sumDyXhat);
    dbeta[ch] = static_cast<float>(sumDy);
    // dx = gamma invStd (dy - mean(dy) - xhat mean(dy xhat))
    const float scale = static_cast<float>(gamma[ch] * invStd), meanDy = static_cast<float>(sumDy / m),
                is = static_cast<float>(invStd), meanDyXhat = static_cast<float>(sumDyXhat / m);
    for (int64_t s = 0; s < n; ++s) {
      const float* in = x + (s * c + ch) * plane;
      const float* d = dy + (s * c + ch) * plane;
      float* out = dx + (s * c + ch) * plane;
#pragma omp simd
      for (int64_t i = 0; i < plane; ++i) out[i] = scale * (d[i] - meanDy - (in[i] - mf) * is * meanDyXhat);
    }
  }
}

}  // namespace dtb::nn
