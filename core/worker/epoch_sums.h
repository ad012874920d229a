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

// What an epoch's figures hold: each phase, bus bytes, the steps'
// collectives and their data size S (step.collectives, step.bytes_sent:
// what came between steps — evaluation, the epoch's figures, a commit — is
// no step's), loss, correct answers and samples.
struct EpochFigures {
  PhaseSeconds phases;
  double busBytes = 0;
  double lossSum = 0, correct = 0, samples = 0;
  double collectives = 0, bytes = 0;

  EpochFigures& operator+=(const EpochFigures& other);
  // As numbers, for a collective (the epoch's all-reduce, elastic's sync
  // from rank 0): unpack reads back what pack gave.
  std::vector<double> pack() const;
  static EpochFigures unpack(const double* packed);
};

// This rank's, summed over some of the epoch's steps.
struct EpochSums : EpochFigures {
  void add(const StepRecord& step);
};

// Every rank's `mine` put together over `comm` (one all-reduce): each phase,
// bus bytes and the collectives the mean of the ranks' sums (per rank: the
// ranks issue the same), loss, correct answers and samples summed. `flag`,
// when given, is summed alongside (a word rank 0 gives every rank at the
// same collective). Throws PluginCallError when the collective fails.
EpochFigures reduceEpochSums(Communicator& comm, const EpochSums& mine, double* flag = nullptr);

}  // namespace dtb::core
