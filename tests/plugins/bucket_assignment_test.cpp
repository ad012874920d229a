// DDP's bucket assignment rules (plugins/bucketed/bucket_assignment.h),
// checked against what torch 1.13's compute_bucket_assignment_by_size and
// DistributedDataParallel produce for the same sizes.
#include "bucket_assignment.h"

#include <gtest/gtest.h>

namespace dtb::strategy::bucketed {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

TEST(BucketAssignment, ABucketClosesOnceItReachesItsLimit) {
  // 3 x 0.4 MiB then 0.7 MiB: 0.4+0.4 < 1, +0.4 >= 1 closes; a lone large
  // tensor overshoots its bucket.
  const std::vector<uint64_t> bytes = {4 * kMiB / 10, 4 * kMiB / 10, 4 * kMiB / 10, 30 * kMiB, kMiB / 10};
  EXPECT_EQ(assignBuckets({0, 1, 2, 3, 4}, bytes, {kMiB, 25 * kMiB}), (Buckets{{0, 1, 2}, {3}, {4}}));
}

TEST(BucketAssignment, LaterBucketsUseTheLastLimit) {
  const std::vector<uint64_t> bytes(6, 10);
  EXPECT_EQ(assignBuckets({5, 4, 3, 2, 1, 0}, bytes, {10, 20}), (Buckets{{5}, {4, 3}, {2, 1}, {0}}));
}

TEST(BucketAssignment, WithoutUnusedParameterSearchDdpStartsWithOneBucket) {
  const std::vector<uint64_t> bytes = {30 * kMiB, 30 * kMiB, 8};
  EXPECT_EQ(initialBuckets(bytes, kMiB, 25 * kMiB, false), (Buckets{{0, 1, 2}}));
}

TEST(BucketAssignment, WithUnusedParameterSearchTheSmallFirstBucketIsReducedLast) {
  // Registration order with {1 MiB, 25 MiB}: {0,1} (1.2 MiB), {2} (30 MiB),
  // {3,4}; reversed: the earliest layers' small bucket goes last.
  const std::vector<uint64_t> bytes = {6 * kMiB / 10, 6 * kMiB / 10, 30 * kMiB, kMiB, kMiB};
  EXPECT_EQ(initialBuckets(bytes, kMiB, 25 * kMiB, true), (Buckets{{3, 4}, {2}, {0, 1}}));
}

TEST(BucketAssignment, TheRebuildFollowsTheReadyOrderSmallBucketFirst) {
  const std::vector<uint64_t> bytes = {6 * kMiB / 10, 6 * kMiB / 10, 30 * kMiB, kMiB, kMiB};
  EXPECT_EQ(rebuiltBuckets({4, 3, 2, 1, 0}, bytes, kMiB, 25 * kMiB), (Buckets{{4}, {3, 2}, {1, 0}}));
}

TEST(BucketAssignment, ZeroSizedParametersJoinTheOpenBucket) {
  EXPECT_EQ(assignBuckets({0, 1, 2}, {0, 0, 0}, {kMiB}), (Buckets{{0, 1, 2}}));
  EXPECT_EQ(assignBuckets({}, {}, {kMiB}), Buckets{});
}

}  // namespace
}  // namespace dtb::strategy::bucketed
