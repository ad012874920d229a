// Which gradients share a bucket, as PyTorch DDP's
// compute_bucket_assignment_by_size decides it (c10d reducer, torch 1.13):
// walk the tensors in the given order, adding each to the open bucket; a
// bucket closes as soon as it holds at least its size limit (so one large
// tensor may overshoot it alone). The first bucket's limit is the first
// entry of `limits`, each later bucket takes the next entry, the last entry
// repeating.
#pragma once

#include <cstdint>
#include <vector>

namespace dtb::strategy::bucketed {

using Buckets = std::vector<std::vector<uint32_t>>;  // parameter indices per bucket

// `order`: parameter indices in the order to walk; `bytes[i]`: size of
// parameter i's gradient; `limits`: bucket size limits in bytes (non-empty).
Buckets assignBuckets(const std::vector<uint32_t>& order, const std::vector<uint64_t>& bytes,
                      const std::vector<uint64_t>& limits);

// DDP's buckets before the first step. With find_unused_parameters off,
// DDP starts with a single bucket (the real order is not known yet; buckets
// are rebuilt after the first step). With it on, no rebuild ever happens:
// registration order walked with limits {first bucket, cap}, buckets sorted
// by their smallest index and reversed, so the small first bucket (the
// earliest layers) is reduced last.
Buckets initialBuckets(const std::vector<uint64_t>& bytes, uint64_t firstBucketBytes, uint64_t capBytes,
                       bool findUnusedParameters);

// The rebuild after the first step: the gradients in the order they became
// ready, limits {first bucket, cap}: the small bucket goes first.
Buckets rebuiltBuckets(const std::vector<uint32_t>& readyOrder, const std::vector<uint64_t>& bytes,
                       uint64_t firstBucketBytes, uint64_t capBytes);

}  // namespace dtb::strategy::bucketed
