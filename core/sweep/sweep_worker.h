// One rank of a collective sweep (dtbench comm), in its own process: the
// backend joined as a training rank joins it, then the sweep of the run's
// [sweep] settings, each size's row reported to the coordinator.
#pragma once

#include "protocol/record_channel.h"
#include "protocol/run_spec.h"

namespace dtb::core {

// The process exit code, as worker/worker.h's runRank returns it.
int runSweepWorker(const RunSpec& spec, int rank, RecordWriter& records);

}  // namespace dtb::core
