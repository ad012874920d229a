// Starts the ranks of one run as processes on this machine and watches them:
// records flow back over one pipe per rank; a rank that dies (signal,
// non-zero exit) or a run that goes silent stops every rank of the run, and
// the failure says which rank and how. All ranks share a process group, so
// nothing is left behind.
#pragma once

#include "launch/launch.h"

namespace dtb::core {

LaunchOutcome launchLocal(const LaunchOptions& options, const RecordHandler& onRecord);

}  // namespace dtb::core
