#include "bucket_assignment.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace dtb::strategy::bucketed {

Buckets assignBuckets(const std::vector<uint32_t>& order, const std::vector<uint64_t>& bytes,
                      const std::vector<uint64_t>& limits) {
  Buckets buckets;
  std::vector<uint32_t> open;
  uint64_t size = 0;
  size_t limit = 0;
  for (uint32_t index : order) {
    open.push_back(index);
    size += bytes[index];
    if (size >= limits[limit]) {
      buckets.push_back(std::move(open));
      open.clear();
      size = 0;
      limit = std::min(limit + 1, limits.size() - 1);
    }
  }
  if (!open.empty()) buckets.push_back(std::move(open));
  return buckets;
}

Buckets initialBuckets(const std::vector<uint64_t>& bytes, uint64_t firstBucketBytes, uint64_t capBytes,
                       bool findUnusedParameters) {
  std::vector<uint32_t> registration(bytes.size());
  std::iota(registration.begin(), registration.end(), 0u);
  if (!findUnusedParameters)
    return assignBuckets(registration, bytes, {std::numeric_limits<uint64_t>::max()});
  Buckets buckets = assignBuckets(registration, bytes, {firstBucketBytes, capBytes});
  std::sort(buckets.begin(), buckets.end(), [](const auto& a, const auto& b) {
    return *std::min_element(a.begin(), a.end()) < *std::min_element(b.begin(), b.end());
  });
  std::reverse(buckets.begin(), buckets.end());
  return buckets;
}

Buckets rebuiltBuckets(const std::vector<uint32_t>& readyOrder, const std::vector<uint64_t>& bytes,
                       uint64_t firstBucketBytes, uint64_t capBytes) {
  return assignBuckets(readyOrder, bytes, {firstBucketBytes, capBytes});
}

}  // namespace dtb::strategy::bucketed
