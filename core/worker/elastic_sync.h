// How the ranks of a new elastic world agree on where training stands
// (Horovod Elastic's State.sync(): rank 0's state broadcast to all, which is
// how a joining worker gets it, and how survivors that committed at
// different points end alike).
#pragma once

#include <cstdint>
#include <vector>

#include "data/distributed_sampler.h"
#include "worker/rank_plugins.h"

namespace dtb::core {

// Broadcasts rank 0's strategy state (state_save), the optimizer's step
// count, the run's optimizer steps, `position` and `shared` (figures of the
// caller's own, replaced in place by rank 0's); every other rank loads them. Returns rank 0's steps and
// position on every rank. The parameters go before, by syncInitialWeights, ahead of the strategy's creation
// (a strategy may read them there). Throws PluginCallError when a collective fails.
struct SyncedProgress {
  uint64_t steps = 0;
  EpochPosition position;
};
SyncedProgress syncFromRankZero(RankPlugins& plugins, uint64_t steps, const EpochPosition& position,
                                std::vector<double>& shared);

}  // namespace dtb::core
