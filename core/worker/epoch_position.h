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
};

}  // namespace dtb::core
