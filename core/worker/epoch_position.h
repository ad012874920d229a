// Where training stands in an epoch: what a checkpoint saves, elastic sync
// hands a new world, and the worker resumes from.
#pragma once

#include <cstdint>

namespace dtb::core {

// The next step's index in the epoch, and how many positions of the epoch's
// sample order were trained on so far (over every world it had: a step's
// positions depend on the world size then).
struct EpochPosition {
  int64_t epoch = 0;
  int64_t stepInEpoch = 0;
  uint64_t samplePositions = 0;

  // `steps` into `epoch`, each of `perStep` positions (one world all along).
  static EpochPosition after(int64_t epoch, int64_t steps, uint64_t perStep) {
    return {epoch, steps, static_cast<uint64_t>(steps) * perStep};
  }
  // A step over `positions` more of the sample order.
  void stepped(uint64_t positions) {
    ++stepInEpoch;
    samplePositions += positions;
  }
  // Every step so far took `perStep` positions: the world never changed in
  // this epoch, so the loader's batches still line up with the steps.
  bool evenSteps(uint64_t perStep) const {
    return samplePositions == static_cast<uint64_t>(stepInEpoch) * perStep;
  }
};

}  // namespace dtb::core
