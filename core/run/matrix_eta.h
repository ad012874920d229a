// How long the rest of a matrix will take, from the runs it has already
// done. Runs of different models, or of one model at different world sizes,
// take very different times, so each remaining run is estimated from the
// finished runs of its own model and world size (seconds per epoch), then
// of its model, then of any run; the run in progress from its own progress
// (which also prices the runs of a model none of whose runs has finished).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dtb::core {

class MatrixEta {
 public:
  struct Run {
    std::string model;
    int64_t worldSize = 1;
    int64_t epochs = 1;
  };
  // Every run of the matrix (cells x repeats), in the order they run.
  explicit MatrixEta(std::vector<Run> runs) : runs_(std::move(runs)) {}

  size_t size() const { return runs_.size(); }
  void finished(size_t index, double seconds);
  // Seconds left in the matrix while run `current` has done `fraction` of
  // its work in `elapsed` seconds; nullopt while nothing is known to go by.
  std::optional<double> remaining(size_t current, double fraction, double elapsed) const;

 private:
  // The expected duration of run i from the finished runs most like it, or
  // from the pace of the run in progress (`currentRate`, seconds per epoch)
  // when it is the first of its model.
  std::optional<double> expected(size_t i, const Run* current, std::optional<double> currentRate) const;

  // Seconds per epoch of finished runs, summed, and how many.
  struct Mean {
    double sum = 0;
    int n = 0;
    std::optional<double> value() const { return n ? std::optional<double>(sum / n) : std::nullopt; }
  };
  std::vector<Run> runs_;
  std::map<std::pair<std::string, int64_t>, Mean> byModelAndWorld_;
  std::map<std::string, Mean> byModel_;
  Mean all_;
};

}  // namespace dtb::core
