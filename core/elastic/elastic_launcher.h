// The local launcher of an elastic run (recovery = "elastic"): Horovod
// Elastic's driver. A rank that dies or hangs does not stop the run: once
// every other member has left the broken world (each says so with a reset
// record, its last commit's step with it) or the survivors' collectives have
// had their time, a member still silent is stopped as hung, and the
// survivors get the next world (elastic/elastic_world.h), in which they roll
// back to their last commit and go on — without new processes. A worker
// asked for ([fault] add) is started and joins at the members' next commit.
// Bounds: min_np (below it the run waits elastic_timeout_s, then fails),
// max_np (no worker joins past it), reset_limit (new worlds, smaller or
// larger, as horovodrun counts them). A failed worker's slot is never used again
// (horovodrun's blacklist without a cool-down).
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "launch/launch.h"

namespace dtb::core {

struct ElasticOptions {
  std::filesystem::path storeDir;  // where the worlds are written (the run's rendezvous store)
  int minNp = 1;
  int maxNp = 0;       // 0: no bound
  int resetLimit = 0;  // 0: no limit
  double timeoutS = 600;
  // After a failure, how long the members may take to leave the broken
  // world: their collectives time out by then.
  double settleS = 65;
};

// One new world, as the coordinator stores it.
struct WorldChange {
  int generation = 0;
  int before = 0, after = 0;  // ranks
  bool failure = false;       // a reset after a failure (else a worker joined, or was lost joining)
  int reset = 0;              // the run's resets so far (every new world counts), this one included
  std::string cause;          // failure, lost joiner: what failed
  std::chrono::system_clock::time_point failedAt, decidedAt;
  int64_t resumedStep = 0;  // failure: the step of the commit the new world goes back to
};

using WorldChangeHandler = std::function<void(const WorldChange&)>;

LaunchOutcome launchElastic(const LaunchOptions& options, const ElasticOptions& elastic,
                            const RecordHandler& onRecord, const WorldChangeHandler& onChange);

}  // namespace dtb::core
