// How ZeRO lays the parameters out over the ranks. Parameters are grouped
// into units, each flattened and padded to a multiple of the world size;
// rank r owns the r-th of the world-size equal slices of every unit (its
// share of the optimizer state, of the reduced gradients and, in stage 3, of
// the parameters). Stages 1-2: units are reduce buckets of whole parameters
// in reverse registration order (the order backward produces them), up to
// reduce_bucket_size elements. Stage 3: one unit per layer, the parameters
// gathered before the layer computes; a layer with fewer elements than
// param_persistence_threshold stays gathered (persistent), as DeepSpeed's
// small parameters do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dtb::strategy::zero {

struct Unit {
  std::vector<uint32_t> params;   // parameter indices
  std::vector<uint64_t> offsets;  // element offset of each in the flat unit
  uint64_t elements = 0;          // sum of the parameters' elements
  uint64_t padded = 0;            // elements rounded up to a multiple of world
  uint64_t shard = 0;             // padded / world
  uint32_t layer = 0;             // stage 3: the layer it holds
  bool persistent = false;        // stage 3: never released
};

// `counts[i]`: elements of parameter i; `layers[i]`: its layer.
std::vector<Unit> bucketUnits(const std::vector<uint64_t>& counts, uint64_t bucketElements, int world);
std::vector<Unit> layerUnits(const std::vector<uint64_t>& counts, const std::vector<uint32_t>& layers,
                             uint32_t layerCount, uint64_t persistenceThreshold, int world);

// The piece of parameter `k` of `unit` (position within unit.params) that
// falls into [begin, end) of the flat unit: {first element within the
// parameter, element count}; count 0 when disjoint.
struct Piece {
  uint64_t first = 0, count = 0;
};
Piece overlap(const Unit& unit, size_t k, uint64_t paramElements, uint64_t begin, uint64_t end);

}  // namespace dtb::strategy::zero
