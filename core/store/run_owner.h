// Which process runs a run: what the store records when a run starts, and
// how a later dtbench tells whether that process still lives. A pid alone
// is not enough — pids are reused — so the process is identified by the
// machine's boot id and the process's start time as well.
#pragma once

#include <cstdint>
#include <string>

namespace dtb::core {

struct RunOwner {
  std::string host;  // gethostname()
  int64_t pid = 0;
  std::string identity;  // "<boot id>:<start time in clock ticks>"
};

RunOwner thisProcessAsOwner();

// On the owner's own host: whether its process still runs. Never true for a
// process of another host (the heartbeat tells those apart).
bool ownerAlive(const RunOwner& owner);

}  // namespace dtb::core
