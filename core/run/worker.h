// One rank of one run, in its own process: load the run's four plugins,
// connect to the other ranks, make sure every rank starts from the same
// weights, train and evaluate epoch by epoch, and report records to the
// coordinator. ARCHITECTURE.md's "one training step" is TrainingStep; this
// is the loop around it.
#pragma once

#include "run/record_channel.h"
#include "run/run_spec.h"

namespace dtb::core {

// Returns the process exit code: 0 when training finished, 1 after an error
// (already reported through `records`).
int runWorker(const RunSpec& spec, int rank, RecordWriter& records);

}  // namespace dtb::core
