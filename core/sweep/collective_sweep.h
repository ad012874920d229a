// One rank's side of a collective sweep: for each collective, dtype and size,
// warm-up calls, then timed calls (each from start to completion), then one
// call on known data to count wrong elements. Times are averaged over the
// ranks per iteration (nccl-tests' default), so rank 0 reports the job's
// figures: mean, p50 and p95 per call, and #wrong summed over ranks. Before
// the sweep every rank measures memcpy at once (the bandwidth reference).
#pragma once

#include "host/communicator.h"
#include "protocol/record_channel.h"
#include "sweep/sweep_spec.h"

namespace dtb::core {

void runCollectiveSweep(const SweepSpec& sweep, Communicator& comm, int rank, int world,
                        RecordWriter& records);

}  // namespace dtb::core
