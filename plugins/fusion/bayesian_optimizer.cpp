#include "bayesian_optimizer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace dtb::strategy::fusion {
namespace {

constexpr int kGridPerDimension = 64;  // candidates for the next point, per dimension
// The kernel hyperparameters tried, in unit-box lengths and standardised amplitudes.
constexpr double kLengthScales[] = {0.05, 0.1, 0.2, 0.3, 0.5, 0.8, 1.2};
constexpr double kAmplitudes[] = {0.5, 1.0, 2.0};

double squaredDistance(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d += (a[i] - b[i]) * (a[i] - b[i]);
  return d;
}

// Lower-triangular L with L L^T = A (A symmetric positive definite, n x n,
// row-major); false if A is not.
bool cholesky(std::vector<double>& a, size_t n) {
  for (size_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (size_t k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
    if (d <= 0) return false;
    a[j * n + j] = std::sqrt(d);
    for (size_t i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (size_t k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = s / a[j * n + j];
    }
    for (size_t k = j + 1; k < n; ++k) a[j * n + k] = 0;
  }
  return true;
}

// Solves L y = b (forward), then L^T x = y (backward) when `both`.
std::vector<double> solve(const std::vector<double>& l, size_t n, std::vector<double> b, bool both) {
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < i; ++k) b[i] -= l[i * n + k] * b[k];
    b[i] /= l[i * n + i];
  }
  if (!both) return b;
  for (size_t i = n; i-- > 0;) {
    for (size_t k = i + 1; k < n; ++k) b[i] -= l[k * n + i] * b[k];
    b[i] /= l[i * n + i];
  }
  return b;
}

}  // namespace

struct BayesianOptimizer::Fit {
  double mean = 0, scale = 1;  // the scores' standardisation
  double length = 0.3, amplitude = 1;
  std::vector<double> chol;   // of K + noise I
  std::vector<double> alpha;  // (K + noise I)^-1 y
  double kernel(const Point& a, const Point& b) const {
    return amplitude * amplitude * std::exp(-squaredDistance(a, b) / (2 * length * length));
  }
  // The posterior's mean and deviation at unit-box point `u`, standardised.
  std::pair<double, double> at(const std::vector<Point>& xs, const Point& u) const {
    const size_t n = xs.size();
    std::vector<double> k(n);
    for (size_t i = 0; i < n; ++i) k[i] = kernel(u, xs[i]);
    double m = 0;
    for (size_t i = 0; i < n; ++i) m += k[i] * alpha[i];
    double variance = amplitude * amplitude;
    for (double vi : solve(chol, n, k, false)) variance -= vi * vi;
    return {m, std::sqrt(std::max(variance, 0.0))};
  }
};

BayesianOptimizer::BayesianOptimizer(std::vector<std::pair<double, double>> bounds, double noise, double xi)
    : bounds_(std::move(bounds)), noise_(noise), xi_(xi) {
  for (const auto& [low, high] : bounds_) {
    if (!(high > low)) throw std::invalid_argument("bayesian optimizer: every bound needs high > low");
  }
}

BayesianOptimizer::Point BayesianOptimizer::toUnit(const Point& x) const {
  Point u(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    u[i] = (x[i] - bounds_[i].first) / (bounds_[i].second - bounds_[i].first);
  return u;
}

BayesianOptimizer::Point BayesianOptimizer::fromUnit(const Point& u) const {
  Point x(u.size());
  for (size_t i = 0; i < u.size(); ++i)
    x[i] = bounds_[i].first + u[i] * (bounds_[i].second - bounds_[i].first);
  return x;
}

void BayesianOptimizer::add(const Point& x, double score) {
  if (x.size() != bounds_.size())
    throw std::invalid_argument("bayesian optimizer: a point of the wrong dimension");
  xs_.push_back(toUnit(x));
  ys_.push_back(score);
}

BayesianOptimizer::Fit BayesianOptimizer::fit() const {
  const size_t n = xs_.size();
  Fit best;
  best.mean = std::accumulate(ys_.begin(), ys_.end(), 0.0) / static_cast<double>(n);
  double variance = 0;
  for (double y : ys_) variance += (y - best.mean) * (y - best.mean);
  best.scale = n > 1 && variance > 0 ? std::sqrt(variance / static_cast<double>(n)) : 1.0;
  std::vector<double> y(n);
  for (size_t i = 0; i < n; ++i) y[i] = (ys_[i] - best.mean) / best.scale;
  double bestLikelihood = -std::numeric_limits<double>::infinity();
  for (double length : kLengthScales) {
    for (double amplitude : kAmplitudes) {
      Fit f = best;
      f.length = length;
      f.amplitude = amplitude;
      std::vector<double> k(n * n);
      for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < n; ++j) k[i * n + j] = f.kernel(xs_[i], xs_[j]) + (i == j ? noise_ : 0.0);
      }
      if (!cholesky(k, n)) continue;
      f.chol = k;
      f.alpha = solve(k, n, y, true);
      // log p(y) = -y^T alpha / 2 - sum log L_ii - n log(2 pi) / 2
      double likelihood = 0;
      for (size_t i = 0; i < n; ++i) likelihood -= 0.5 * y[i] * f.alpha[i] + std::log(k[i * n + i]);
      if (likelihood > bestLikelihood) {
        bestLikelihood = likelihood;
        best = f;
      }
    }
  }
  return best;
}

std::pair<double, double> BayesianOptimizer::predict(const Point& x) const {
  if (xs_.empty()) throw std::logic_error("bayesian optimizer: no sample to predict from");
  const Fit f = fit();
  const auto [mean, deviation] = f.at(xs_, toUnit(x));
  return {f.mean + f.scale * mean, f.scale * deviation};
}

BayesianOptimizer::Point BayesianOptimizer::next() const {
  if (xs_.empty()) throw std::logic_error("bayesian optimizer: no sample to start from");
  const Fit f = fit();
  const size_t d = bounds_.size();
  // Horovod's noise-aware incumbent: the best predicted mean at a sample.
  double incumbent = -std::numeric_limits<double>::infinity();
  for (const Point& u : xs_) incumbent = std::max(incumbent, f.at(xs_, u).first);
  Point best(d, 0.0), u(d, 0.0);
  double bestImprovement = -1;
  std::vector<int> index(d, 0);
  for (;;) {
    for (size_t i = 0; i < d; ++i) u[i] = index[i] / static_cast<double>(kGridPerDimension - 1);
    const auto [mean, sigma] = f.at(xs_, u);
    double improvement = 0;
    if (sigma > 0) {
      const double gain = mean - incumbent - xi_, z = gain / sigma;
      improvement =
          gain * 0.5 * std::erfc(-z / std::sqrt(2.0)) + sigma * std::exp(-z * z / 2) / std::sqrt(2 * M_PI);
    }
    if (improvement > bestImprovement) {
      bestImprovement = improvement;
      best = u;
    }
    size_t i = 0;
    while (i < d && ++index[i] == kGridPerDimension) index[i++] = 0;
    if (i == d) break;
  }
  return fromUnit(best);
}

}  // namespace dtb::strategy::fusion
