// A rank's checkpoint, for recovery = "restart" (torchrun's way: when a rank
// fails, every worker is stopped and started again from the last
// checkpoint). Every checkpoint_every optimizer steps each rank writes what it
// needs to go on from there: where training stands, its parameters, its
// strategy's state (state_save: optimizer moments, ...) and the optimizer's
// step count (and fp16's loss scaler). Files rank<r>-step<s>.ckpt in the run's checkpoint directory,
// each written whole (a temporary file renamed), the last two of each rank
// kept: a rank killed while writing leaves the previous one, and the ranks
// resume from the newest step all of them have.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

namespace dtb::core {

struct Checkpoint {
  uint64_t steps = 0;                        // optimizer steps done over the run
  int64_t epoch = 0;                         // the epoch (0-based) the next step belongs to
  int64_t stepInEpoch = 0;                   // steps of that epoch done
  int64_t optimizerStep = 0;                 // the host optimizer's count (Adam's bias correction)
  std::vector<std::vector<uint8_t>> params;  // each parameter's values, in model order
  std::vector<uint8_t> strategyState;        // what the strategy's state_save wrote
  // fp16's loss scaler (scale, updates, last overflow, hysteresis left), so
  // a resumed run scales as the uninterrupted one would; empty without one.
  std::vector<double> lossScaler;
};

// Writes rank `rank`'s checkpoint of step `c.steps` and drops its older ones
// but the previous. Throws std::runtime_error naming the file.
void writeCheckpoint(const std::filesystem::path& dir, int rank, const Checkpoint& c);

// The newest step for which all `world` ranks have a checkpoint; nullopt
// when there is none (a restart then starts from the beginning).
std::optional<uint64_t> latestCompleteCheckpoint(const std::filesystem::path& dir, int world);

// Removes every rank's checkpoints of steps after `steps`: what a failed
// attempt left beyond the step the next one resumes from, which a later
// restart must not pair with fresh files of the same step.
void dropCheckpointsAfter(const std::filesystem::path& dir, uint64_t steps);

// Rank `rank`'s checkpoint of step `steps`. Throws std::runtime_error naming
// the file when it is missing, truncated or not a checkpoint.
Checkpoint readCheckpoint(const std::filesystem::path& dir, int rank, uint64_t steps);

}  // namespace dtb::core
