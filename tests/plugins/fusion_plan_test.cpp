// Horovod's fusion decisions (plugins/fusion): threshold rounding, greedy
// fusion, rank 0's message table and the response cache.
#include "fusion_plan.h"

#include <gtest/gtest.h>

#include "negotiation.h"

namespace dtb::strategy::fusion {
namespace {

TEST(FusionPlan, TheThresholdIsRoundedUpToLocalSizeTimes512Bytes) {
  EXPECT_EQ(roundThreshold(128u << 20, 2), 128u << 20);  // already a multiple
  EXPECT_EQ(roundThreshold(1000, 2), 1024u);
  EXPECT_EQ(roundThreshold(1025, 3), 1536u);
  EXPECT_EQ(roundThreshold(0, 4), 0u);
}

TEST(FusionPlan, TensorsFuseGreedilyInOrderWithinTheThreshold) {
  EXPECT_EQ(fuse({40, 40, 30, 100, 10}, 100), (std::vector<std::vector<uint32_t>>{{0, 1}, {2}, {3}, {4}}));
  EXPECT_EQ(fuse({40, 60, 200, 1}, 100), (std::vector<std::vector<uint32_t>>{{0, 1}, {2}, {3}}));
  EXPECT_EQ(fuse({1, 1, 1}, 0), (std::vector<std::vector<uint32_t>>{{0}, {1}, {2}}))
      << "threshold 0: no fusion";
  EXPECT_TRUE(fuse({}, 100).empty());
}

TEST(Negotiation, ATensorIsReadyOnceEveryRankReportedIt) {
  MessageTable table(3);
  EXPECT_EQ(table.add({{0, 1}, {1}, {}}), std::vector<uint32_t>{});
  EXPECT_EQ(table.waiting().at(0), (std::set<int>{0}));
  EXPECT_EQ(table.add({{}, {0}, {1, 0}}), (std::vector<uint32_t>{1, 0})) << "in the order they completed";
  EXPECT_TRUE(table.waiting().empty());
  EXPECT_EQ(table.add({{2}, {2}, {2}}), std::vector<uint32_t>{2});
}

TEST(Negotiation, TheResponseCacheAgreesThroughBits) {
  ResponseCache cache(40);
  EXPECT_EQ(cache.words(), 2u);
  for (uint32_t t : {7u, 3u, 35u}) cache.put(t);
  cache.put(3);  // already there
  std::vector<int32_t> rank0(2, 0), rank1(2, 0);
  cache.setBits({3, 7, 99}, rank0);  // 99 is not cached
  cache.setBits({35, 3}, rank1);
  std::vector<int32_t> both = {rank0[0] & rank1[0], rank0[1] & rank1[1]};
  EXPECT_EQ(cache.tensorsWithBits(both), std::vector<uint32_t>{3});
  EXPECT_EQ(cache.tensorsWithBits(rank1), (std::vector<uint32_t>{3, 35})) << "in cache order";
}

TEST(Negotiation, AFullCacheTakesNoMore) {
  ResponseCache cache(1);
  cache.put(5);
  cache.put(6);
  EXPECT_TRUE(cache.contains(5));
  EXPECT_FALSE(cache.contains(6));
}

// Why a rank asks once: asked again after the tensor completed earlier in
// the same cycle, the table keeps a request that completes it too soon in
// the next step (rank 2 has not got there yet).
TEST(Negotiation, ARequestAskedAgainAfterItsTensorCompletedIsCountedAgain) {
  MessageTable table(3);
  EXPECT_TRUE(table.add({{}, {4}, {4}}).empty());
  EXPECT_EQ(table.add({{4}, {4}, {4}}), std::vector<uint32_t>{4}) << "rank 0's request completes it";
  EXPECT_EQ(table.add({{4}, {4}, {}}), std::vector<uint32_t>{4}) << "the stale requests of ranks 1 and 2";
}

TEST(Negotiation, EachTensorIsAskedForOncePerStep) {
  ResponseCache cache(4);
  cache.put(2);
  RequestLog requests(5);
  EXPECT_EQ(requests.take({0, 2, 3}, cache), (std::vector<uint32_t>{0, 3})) << "2 agrees through the cache";
  EXPECT_TRUE(requests.take({0, 2, 3}, cache).empty()) << "still waiting for other ranks: not asked again";
  EXPECT_EQ(requests.take({0, 2, 3, 4}, cache), std::vector<uint32_t>{4});
  requests.reduced(0);
  EXPECT_EQ(requests.take({0}, cache), std::vector<uint32_t>{0}) << "reduced: the next step asks again";
  requests.clear();
  EXPECT_EQ(requests.take({3, 4}, cache), (std::vector<uint32_t>{3, 4}))
      << "a failed step forgets its requests";
}

}  // namespace
}  // namespace dtb::strategy::fusion
