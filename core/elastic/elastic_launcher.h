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
//
// Across hosts (launcher = "ssh") it places the workers itself, as
// horovodrun's elastic driver does (elastic_hosts.h): on the hosts a
// host_discovery script reports, polled while the run goes, or the
// hostfile's. The first world is as many of world_size as the hosts have
// slots for (at least min_np, waited for up to elastic_timeout_s); a host
// whose worker fails is blacklisted (its other workers leave with it) and
// comes back after its cool-down; a new world after a failure is filled
// from free slots; a host discovery adds fills free slots at the members'
// next commit (up to max_np, else world_size); a host discovery drops takes
// its workers out at the members' next commit, and they end.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "elastic/elastic_hosts.h"
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
  // launcher = "ssh": where the hosts come from, and their blacklist.
  std::optional<ElasticHostOptions> hosts;
};

// One new world, as the coordinator stores it.
struct WorldChange {
  enum class Kind {
    kReset,     // after a failure: the survivors (and workers started for them) go back to a commit
    kJoin,      // workers join at the members' next commit
    kJoinLost,  // a worker that was to join died first
    kLeave,     // workers on hosts discovery dropped leave at the members' next commit
    kStart,     // the first world, smaller than world_size: the hosts had no more slots
  };
  Kind kind = Kind::kJoin;
  int generation = 0;
  int before = 0, after = 0;  // ranks
  int reset = 0;              // the run's resets so far (every new world counts), this one included
  std::string cause;          // what failed, or which hosts came or went
  std::chrono::system_clock::time_point failedAt, decidedAt;
  int64_t resumedStep = 0;  // failure: the step of the commit the new world goes back to
};

using WorldChangeHandler = std::function<void(const WorldChange&)>;
// A host event across hosts: kind "host_added", "host_removed", "blacklist"
// or "discovery_failed", and what it says.
using HostEventHandler = std::function<void(const std::string& kind, const std::string& detail)>;

LaunchOutcome launchElastic(const LaunchOptions& options, const ElasticOptions& elastic,
                            const RecordHandler& onRecord, const WorldChangeHandler& onChange,
                            const HostEventHandler& onHostEvent);

}  // namespace dtb::core
