// The progress line of `dtbench run`: which run of the matrix, its epoch and
// step, its throughput, and the time left in the whole matrix (MatrixEta).
// On a terminal it redraws one line; otherwise it prints a line per epoch.
#pragma once

#include <chrono>
#include <string>

#include "protocol/record_channel.h"
#include "run/matrix_eta.h"

namespace dtb::core {

class RunProgress {
 public:
  explicit RunProgress(MatrixEta eta);

  void beginRun(size_t index, const std::string& label, int epochs);
  void update(const Record& progress);
  // A line about the run while it goes on (a restart), kept above the progress line.
  void note(const std::string& text);
  // Prints the run's outcome and its duration, and tells the ETA how long it took.
  void endRun(const std::string& outcome, bool countsForEta);

 private:
  std::string etaText(double fraction) const;

  MatrixEta eta_;  // knows every run of the matrix
  bool tty_;
  std::chrono::steady_clock::time_point runStart_;
  size_t index_ = 0;
  std::string label_;
  int epochs_ = 1;
};

}  // namespace dtb::core
