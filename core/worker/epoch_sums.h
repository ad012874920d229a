// What an epoch's steps add up to: on one rank (EpochSums, step by step),
// and over every rank the epoch had (EpochFigures: what its record says).
// An elastic run's epoch may change its world midway: its figures are then
// those committed before the change plus the new world's since.
#pragma once

#include <vector>

#include "host/communicator.h"
#include "store/records.h"
#include "train/step_phases.h"

namespace dtb::core {

// This rank's, over some of the epoch's steps.
struct EpochSums {
  PhaseSeconds phases;  // every phase, summed over the steps
  double busBytes = 0;
  double lossSum = 0, correct = 0, samples = 0;
  // The steps' own collectives and their data size S (step.collectives,
  // step.bytes_sent): what came between steps (evaluation, the epoch's
  // figures, a commit) is no step's.
  double collectives = 0, bytes = 0;

  void add(const StepRecord& step);
};

// Over the ranks: each phase the mean of the ranks' sums, loss, correct
// answers and samples summed.
struct EpochFigures {
  PhaseSeconds phases;
  double busBytes = 0;  // per rank
  double lossSum = 0, correct = 0, samples = 0;
  double collectives = 0, bytes = 0;  // per rank (the mean of the ranks': they issue the same)

  EpochFigures& operator+=(const EpochFigures& other);
  // As numbers, for a collective (elastic's sync from rank 0): pack()
  // gives kPackedSize values that unpack reads back.
  static constexpr size_t kPackedSize = kPhaseCount + 6;
  std::vector<double> pack() const;
  static EpochFigures unpack(const double* packed);
};

// Every rank's `mine` put together over `comm` (one all-reduce). `flag`,
// when given, is summed alongside (a word rank 0 gives every rank at the
// same collective). Throws PluginCallError when the collective fails.
EpochFigures reduceEpochSums(Communicator& comm, const EpochSums& mine, double* flag = nullptr);

}  // namespace dtb::core
