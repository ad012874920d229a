// One rank of one run, in its own process: load the run's four plugins,
// connect to the other ranks, make sure every rank starts from the same
// weights, train and evaluate epoch by epoch, and report records to the
// coordinator. ARCHITECTURE.md's "one training step" is TrainingStep; this
// is the loop around it.
#pragma once

#include <functional>

#include "protocol/record_channel.h"
#include "protocol/run_spec.h"
#include "worker/connect.h"

namespace dtb::core {

// One rank's process around `work`: a guard on waits stuck in a backend,
// the rank's host reported, then its end or its error. Returns the exit
// code: 0 when `work` returned, 1 after an error (already reported through
// `records`). A collective sweep's rank runs in it too (sweep/sweep_worker.h).
int runRank(const RunSpec& spec, int rank, RecordWriter& records,
            const std::function<void(const RankPlace&)>& work);

// A training rank (worker/training_worker.h) in runRank.
int runWorker(const RunSpec& spec, int rank, RecordWriter& records);

}  // namespace dtb::core
