// Bayesian optimisation of a score over a box, as Horovod's autotune does it
// (horovod/common/optim/bayesian_optimization.cc, gaussian_process.cc): a
// Gaussian process with a squared-exponential kernel fitted to the scored
// points, and the next point where the expected improvement over the best
// predicted score is largest.
//
// Differences, for a 2-parameter box and at most a few dozen points:
// inputs are scaled to [0, 1] per dimension and scores standardised (mean
// 0, deviation 1), so one noise level and one exploration margin fit any
// score's units; the kernel's length scale and amplitude are the ones of a
// small grid with the largest marginal likelihood (Horovod: L-BFGS over
// them); the expected improvement is maximised over a 64-per-dimension grid
// of the box (Horovod: L-BFGS from random starts). No randomness: every
// rank that ran it would propose the same point (only rank 0 does).
#pragma once

#include <utility>
#include <vector>

namespace dtb::strategy::fusion {

class BayesianOptimizer {
 public:
  using Point = std::vector<double>;

  // `bounds`: (low, high) per dimension. `noise`: the observations' variance
  // in standardised units (Horovod's GAUSSIAN_PROCESS_NOISE); `xi`: how much
  // better than the best prediction a point must promise (exploration).
  explicit BayesianOptimizer(std::vector<std::pair<double, double>> bounds, double noise = 0.2,
                             double xi = 0.01);

  void add(const Point& x, double score);
  size_t samples() const { return xs_.size(); }
  // The point of the box with the largest expected improvement; needs a
  // sample first.
  Point next() const;

  // The fitted process's mean and standard deviation at `x` (box units, the
  // score's units): for tests and reports.
  std::pair<double, double> predict(const Point& x) const;

 private:
  struct Fit;  // the process conditioned on the samples
  Fit fit() const;
  Point toUnit(const Point& x) const;
  Point fromUnit(const Point& u) const;

  std::vector<std::pair<double, double>> bounds_;
  double noise_, xi_;
  std::vector<Point> xs_;  // in [0, 1]^d
  std::vector<double> ys_;
};

}  // namespace dtb::strategy::fusion
