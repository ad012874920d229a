#include "fusion_plan.h"

namespace dtb::strategy::fusion {

uint64_t roundThreshold(uint64_t thresholdBytes, int localSize) {
  const uint64_t unit = static_cast<uint64_t>(localSize > 0 ? localSize : 1) * 8 * 64;
  return (thresholdBytes + unit - 1) / unit * unit;
}

std::vector<std::vector<uint32_t>> fuse(const std::vector<uint64_t>& bytes, uint64_t thresholdBytes) {
  std::vector<std::vector<uint32_t>> groups;
  uint64_t size = 0;
  for (uint32_t i = 0; i < bytes.size(); ++i) {
    if (groups.empty() || thresholdBytes == 0 || size + bytes[i] > thresholdBytes) {
      groups.push_back({i});
      size = bytes[i];
    } else {
      groups.back().push_back(i);
      size += bytes[i];
    }
  }
  return groups;
}

}  // namespace dtb::strategy::fusion
