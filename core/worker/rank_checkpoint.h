// What one rank saves in a checkpoint and restores from it (recovery =
// "restart", protocol/checkpoint.h): the model's parameters, the strategy's own
// state through its state_save / state_load, and the optimizer's step count.
// Not saved: a model's buffers outside its parameters (batch norm's running
// statistics: the model ABI has no way to reach them yet) and the data
// loader's and dropout's random state — a restarted run follows the same
// batches (the sampler is seeded per epoch) with fresh dropout masks.
#pragma once

#include <cstdint>

#include "protocol/checkpoint.h"
#include "worker/rank_plugins.h"

namespace dtb::core {

// Throws std::runtime_error naming the strategy when it cannot save its state
// (no state_save): recovery = "restart" cannot bring it back.
void requireSavableStrategy(RankPlugins& plugins);

// The rank as it stands after `steps` optimizer steps, the next being step
// `stepInEpoch` of `epoch`.
Checkpoint captureCheckpoint(RankPlugins& plugins, uint64_t steps, int64_t epoch, int64_t stepInEpoch);

// Puts the rank back as `c` left it; throws std::runtime_error saying what
// does not fit (another model, another optimizer).
void restoreCheckpoint(RankPlugins& plugins, const Checkpoint& c);

// Its two halves: the parameters, which need no strategy (elastic training
// puts them back before the next world's strategy is made), and the
// strategy's state with the optimizer's step count.
void restoreParameters(RankPlugins& plugins, const Checkpoint& c);
void restoreState(RankPlugins& plugins, const Checkpoint& c);

}  // namespace dtb::core
