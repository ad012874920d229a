// A rank's communicator for a run: the cell's backend plugin, created with
// the run's rendezvous (store, key prefix, bind address, timeout). Used by
// training workers and collective sweeps alike.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "host/communicator.h"
#include "plugin/loader.h"
#include "protocol/run_spec.h"
#include "worker/rank_plugins.h"

namespace dtb::core {

// Where a rank of the run lives: its host, its rank among that host's
// ranks, and the address its transport binds (the cell's interface).
struct RankPlace {
  std::string host;
  int localRank = 0;
  int localSize = 1;
  std::string address;
};
RankPlace placeRank(const RunSpec& spec, int rank);

// The interface a rank placed so talks over, as its host record says: the
// cell's, or the one holding its address. A lookup (name, interfaces) done
// once, for the record: connecting does not need it.
std::string usedInterface(const RunSpec& spec, const RankPlace& place);

// The run's communicator for `rank`. With kForHostTensors, a backend that
// moves GPU memory only (NCCL) gets a Gloo communicator of the same ranks
// beside it for the host tensors a strategy negotiates with
// (Communicator::attachControl); the collective sweep measures the backend
// alone.
enum class Control { kNone, kForHostTensors };
std::unique_ptr<Communicator> connectRank(const RunSpec& spec, int rank, PluginLoader& loader,
                                          Control control = Control::kNone);

// The backend plugin `backend`, joined to its peers through `rdv` and wrapped
// for strategies, with `timeout` for waits that name none. What connectRank
// does once it has the run's rendezvous; tests that run ranks as threads
// bring their own.
std::unique_ptr<Communicator> connectBackend(PluginLoader& loader, const PluginChoice& backend,
                                             const dtb_rendezvous_t& rdv, std::chrono::milliseconds timeout);

// The loader a worker uses: the run's plugin directories before the default path.
PluginLoader workerLoader(const RunSpec& spec);

}  // namespace dtb::core
