// Which samples each rank trains on in an epoch, with the semantics of
// PyTorch's DistributedSampler:
//   - every epoch a permutation of the (scaled) dataset, the same on every
//     rank, seeded by seed + epoch (shuffle on), or the identity;
//   - without drop_last, the list is padded by repeating its head until it
//     divides by the world size, so every rank gets ceil(N / world) samples;
//     with drop_last, the tail is cut so each rank gets floor(N / world);
//   - rank r takes every world-th index starting at r (strided, not blocks).
// The permutation comes from std::mt19937_64, not torch.randperm, so the
// order differs from PyTorch's while the guarantees are the same.
// `scale` repeats the dataset: index i of the scaled set is sample i mod N.
#pragma once

#include <cstdint>
#include <vector>

namespace dtb::core {

struct SamplerConfig {
  uint64_t datasetSize = 0;
  uint64_t scale = 1;
  int world = 1;
  int rank = 0;
  bool shuffle = true;
  bool dropLast = false;
  uint64_t seed = 0;
  // false: no padding either — rank r takes r, r + world, ... of the N
  // samples, so ranks may differ by one and every sample counts exactly once
  // (evaluation). Ignored with dropLast.
  bool pad = true;
  // Positions of each epoch's order already trained on (elastic training's
  // new world goes on mid-epoch): only the rest, positions offset, offset +
  // 1, ..., is shared out, as Horovod's ElasticSampler shares out the
  // indices not yet processed. With a world that never changed, the first
  // k batches of every rank are exactly positions [0, k x batch x world).
  uint64_t offset = 0;
  // Where the epoch's order ends for this sampler: positions from `end` on
  // are not shared out (an epoch of max_steps_per_epoch steps stops short
  // of the dataset's end, and a new elastic world shares out only what is
  // left of it). 0: the (scaled) dataset's end.
  uint64_t end = 0;
};

// Where training stands in an epoch: the next step's index in it, and how
// many positions of the epoch's order were trained on so far (over every
// world it had: a step's positions depend on the world size then) — a new
// world's SamplerConfig::offset. What a checkpoint saves, elastic sync hands
// a new world, and the training worker resumes from.
struct EpochPosition {
  int64_t epoch = 0;
  int64_t stepInEpoch = 0;
  uint64_t samplePositions = 0;

  // `steps` into `epoch`, each of `perStep` positions (one world all along).
  static EpochPosition after(int64_t epoch, int64_t steps, uint64_t perStep) {
    return {epoch, steps, static_cast<uint64_t>(steps) * perStep};
  }
  // A step over `positions` more of the sample order.
  void stepped(uint64_t positions) {
    ++stepInEpoch;
    samplePositions += positions;
  }
  // Every step so far took `perStep` positions: the world never changed in
  // this epoch, so the loader's batches still line up with the steps.
  bool evenSteps(uint64_t perStep) const {
    return samplePositions == static_cast<uint64_t>(stepInEpoch) * perStep;
  }
};

class DistributedSampler {
 public:
  explicit DistributedSampler(SamplerConfig config);  // throws std::invalid_argument

  // Samples this rank gets per epoch.
  uint64_t samplesPerRank() const { return perRank_; }
  // This rank's dataset indices for `epoch` (0-based), in training order.
  std::vector<uint64_t> indices(uint64_t epoch) const;

 private:
  SamplerConfig config_;
  uint64_t perRank_;
};

}  // namespace dtb::core
