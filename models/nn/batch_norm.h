// 2-D batch normalisation over [n, c, h, w], as PyTorch's BatchNorm2d:
// training normalises with the batch's mean and biased variance and moves
// the running estimates by `momentum` (0.1) toward the batch mean and the
// unbiased variance; evaluation normalises with the running estimates.
// eps 1e-5; scale (weight) starts at 1, shift (bias) at 0.
#pragma once

#include <cstdint>
#include <vector>

#include "parameter.h"

namespace dtb::nn {

class BatchNorm2d {
 public:
  BatchNorm2d(int64_t channels, Parameter& weight, Parameter& bias, double eps = 1e-5, double momentum = 0.1);

  void forward(const float* x, int64_t n, int64_t h, int64_t w, bool training, float* y);
  // After a training forward over the same x: the scale and shift gradients
  // (written) and dx.
  void backward(const float* x, const float* dy, float* dx);

  const std::vector<float>& runningMean() const { return runningMean_; }
  const std::vector<float>& runningVar() const { return runningVar_; }

 private:
  int64_t channels_;
  Parameter& weight_;
  Parameter& bias_;
  double eps_, momentum_;
  std::vector<float> runningMean_, runningVar_;
  // Of the last training forward: shape, per-channel mean and 1/sqrt(var + eps).
  int64_t n_ = 0, planeSize_ = 0;
  std::vector<double> mean_, invStd_;
};

}  // namespace dtb::nn
