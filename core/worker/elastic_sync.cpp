#include "worker/elastic_sync.h"

#include <vector>

#include "host/blocking_collective.h"
#include "worker/rank_checkpoint.h"

namespace dtb::core {
namespace {

void broadcast(Communicator& comm, dtb_tensor_t tensor) {
  runCollective(comm, [&](dtb_request_t* r, std::string* e) { return comm.broadcast(&tensor, 0, r, e); });
}

}  // namespace

SyncedProgress syncFromRankZero(RankPlugins& plugins, uint64_t steps, const EpochPosition& position,
                                std::vector<double>& shared) {
  Communicator& comm = plugins.comm();
  Checkpoint mine = captureCheckpoint(plugins, steps, position.epoch, position.stepInEpoch);
  std::vector<double> counts = {static_cast<double>(steps),
                                static_cast<double>(position.epoch),
                                static_cast<double>(position.stepInEpoch),
                                static_cast<double>(position.samplePositions),
                                static_cast<double>(mine.optimizerStep),
                                static_cast<double>(mine.strategyState.size())};
  broadcast(comm, dtb::hostTensor(counts.data(), counts.size(), DTB_DTYPE_F64));
  if (!shared.empty()) broadcast(comm, dtb::hostTensor(shared.data(), shared.size(), DTB_DTYPE_F64));
  std::vector<uint8_t> state = std::move(mine.strategyState);
  state.resize(static_cast<size_t>(counts[5]));
  if (!state.empty()) broadcast(comm, dtb::hostTensor(state.data(), state.size(), DTB_DTYPE_U8));
  // fp16's loss scaler: every rank of a run has one, or none.
  std::vector<double> scaler = std::move(mine.lossScaler);
  if (!scaler.empty()) broadcast(comm, dtb::hostTensor(scaler.data(), scaler.size(), DTB_DTYPE_F64));
  SyncedProgress synced;
  synced.steps = static_cast<uint64_t>(counts[0]);
  synced.position = {static_cast<int64_t>(counts[1]), static_cast<int64_t>(counts[2]),
                     static_cast<uint64_t>(counts[3])};
  if (comm.rank() != 0) {
    Checkpoint theirs;
    theirs.steps = synced.steps;
    theirs.optimizerStep = static_cast<int64_t>(counts[4]);
    theirs.strategyState = std::move(state);
    theirs.lossScaler = std::move(scaler);
    restoreState(plugins, theirs);
  }
  return synced;
}

}  // namespace dtb::core
