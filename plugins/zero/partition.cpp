#include "partition.h"

#include <algorithm>

namespace dtb::strategy::zero {
namespace {

void close(Unit& unit, int world) {
  const uint64_t w = static_cast<uint64_t>(world);
  unit.padded = (unit.elements + w - 1) / w * w;
  unit.shard = unit.padded / w;
}

void add(Unit& unit, uint32_t param, uint64_t count) {
  unit.params.push_back(param);
  unit.offsets.push_back(unit.elements);
  unit.elements += count;
}

}  // namespace

std::vector<Unit> bucketUnits(const std::vector<uint64_t>& counts, uint64_t bucketElements, int world) {
  std::vector<Unit> units;
  Unit open;
  for (size_t i = counts.size(); i-- > 0;) {
    if (!open.params.empty() && open.elements + counts[i] > bucketElements) {
      close(open, world);
      units.push_back(std::move(open));
      open = Unit{};
    }
    add(open, static_cast<uint32_t>(i), counts[i]);
  }
  if (!open.params.empty()) {
    close(open, world);
    units.push_back(std::move(open));
  }
  return units;
}

std::vector<Unit> layerUnits(const std::vector<uint64_t>& counts, const std::vector<uint32_t>& layers,
                             uint32_t layerCount, uint64_t persistenceThreshold, int world) {
  std::vector<Unit> units(layerCount);
  for (uint32_t l = 0; l < layerCount; ++l) units[l].layer = l;
  for (uint32_t i = 0; i < counts.size(); ++i) add(units[layers[i]], i, counts[i]);
  for (Unit& u : units) {
    close(u, world);
    u.persistent = u.elements < persistenceThreshold;
  }
  std::erase_if(units, [](const Unit& u) { return u.params.empty(); });
  return units;
}

Piece overlap(const Unit& unit, size_t k, uint64_t paramElements, uint64_t begin, uint64_t end) {
  const uint64_t first = std::max(unit.offsets[k], begin),
                 last = std::min(unit.offsets[k] + paramElements, end);
  if (first >= last) return {};
  return {first - unit.offsets[k], last - first};
}

}  // namespace dtb::strategy::zero
