// DistributedSampler semantics: disjoint, complete, padded or cut, strided,
// reshuffled per epoch, identical permutation on every rank.
#include "data/distributed_sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

namespace dtb::core {
namespace {

std::vector<std::vector<uint64_t>> allRanks(SamplerConfig c, uint64_t epoch) {
  std::vector<std::vector<uint64_t>> out;
  for (int r = 0; r < c.world; ++r) {
    c.rank = r;
    out.push_back(DistributedSampler(c).indices(epoch));
  }
  return out;
}

TEST(DistributedSampler, RanksPartitionTheDatasetWhenItDivides) {
  for (int world : {1, 2, 3, 4}) {
    auto ranks = allRanks({12, 1, world, 0, true, false, 5}, 0);
    std::multiset<uint64_t> seen;
    for (const auto& r : ranks) {
      EXPECT_EQ(r.size(), 12u / world);
      seen.insert(r.begin(), r.end());
    }
    EXPECT_EQ(seen, (std::multiset<uint64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})) << "world " << world;
  }
}

TEST(DistributedSampler, PadsByRepeatingTheHeadWithoutDropLast) {
  // 10 samples, 4 ranks: 3 each, 12 in all, the first 2 of the order repeat.
  SamplerConfig c{10, 1, 4, 0, false, false, 0};
  auto ranks = allRanks(c, 0);
  for (const auto& r : ranks) EXPECT_EQ(r.size(), 3u);
  // Unshuffled and strided: rank r gets r, r + 4, r + 8 (mod 10).
  EXPECT_EQ(ranks[0], (std::vector<uint64_t>{0, 4, 8}));
  EXPECT_EQ(ranks[1], (std::vector<uint64_t>{1, 5, 9}));
  EXPECT_EQ(ranks[2], (std::vector<uint64_t>{2, 6, 0}));
  EXPECT_EQ(ranks[3], (std::vector<uint64_t>{3, 7, 1}));
}

TEST(DistributedSampler, DropLastCutsTheTail) {
  auto ranks = allRanks({10, 1, 4, 0, false, true, 0}, 0);
  std::set<uint64_t> seen;
  for (const auto& r : ranks) {
    EXPECT_EQ(r.size(), 2u);
    seen.insert(r.begin(), r.end());
  }
  EXPECT_EQ(seen.size(), 8u);  // no sample twice
}

TEST(DistributedSampler, ShufflesDifferentlyEachEpochButAlikeOnEveryRank) {
  SamplerConfig c{1000, 1, 2, 0, true, false, 42};
  auto epoch0 = allRanks(c, 0);
  auto epoch1 = allRanks(c, 1);
  EXPECT_NE(epoch0[0], epoch1[0]);
  std::set<uint64_t> union0(epoch0[0].begin(), epoch0[0].end());
  union0.insert(epoch0[1].begin(), epoch0[1].end());
  EXPECT_EQ(union0.size(), 1000u);  // the two ranks' shares are one permutation
  EXPECT_EQ(DistributedSampler(c).indices(3), DistributedSampler(c).indices(3));  // deterministic
  c.seed = 43;
  EXPECT_NE(DistributedSampler(c).indices(0), epoch0[0]);
}

TEST(DistributedSampler, ScaleRepeatsTheDataset) {
  auto ranks = allRanks({5, 4, 2, 0, true, false, 1}, 0);  // 20 samples over 2 ranks
  std::map<uint64_t, int> count;
  for (const auto& r : ranks) {
    EXPECT_EQ(r.size(), 10u);
    for (uint64_t i : r) ++count[i];
  }
  ASSERT_EQ(count.size(), 5u);
  for (const auto& [index, n] : count) EXPECT_EQ(n, 4) << index;
}

TEST(DistributedSampler, UnpaddedShardsCountEverySampleOnce) {
  SamplerConfig c{10, 1, 4, 0, false, false, 0};
  c.pad = false;
  auto ranks = allRanks(c, 0);
  EXPECT_EQ(ranks[0], (std::vector<uint64_t>{0, 4, 8}));
  EXPECT_EQ(ranks[2], (std::vector<uint64_t>{2, 6}));
  EXPECT_EQ(ranks[3], (std::vector<uint64_t>{3, 7}));
  c.rank = 3;
  EXPECT_EQ(DistributedSampler(c).samplesPerRank(), 2u);
  c.datasetSize = 2;  // fewer samples than ranks
  EXPECT_TRUE(DistributedSampler(c).indices(0).empty());
}

TEST(DistributedSampler, EmptyAndInvalid) {
  EXPECT_TRUE(DistributedSampler({0, 1, 2, 1, true, false, 0}).indices(0).empty());
  EXPECT_THROW(DistributedSampler({10, 1, 2, 2, true, false, 0}), std::invalid_argument);
  EXPECT_THROW(DistributedSampler({10, 0, 2, 0, true, false, 0}), std::invalid_argument);
}

// Elastic training: 3 ranks train 2 batches of 4, then a world of 2 goes on
// from there. The new world's ranks share out exactly the positions the old
// one had not reached — none twice, none lost — as Horovod's ElasticSampler
// shares out the indices not yet processed.
TEST(DistributedSampler, AnOffsetSharesOutOnlyWhatIsLeftOfTheEpoch) {
  const SamplerConfig three{48, 1, 3, 0, true, false, 9};
  std::multiset<uint64_t> seen;
  for (const auto& r : allRanks(three, 2)) seen.insert(r.begin(), r.begin() + 8);  // 2 batches of 4
  SamplerConfig two = three;
  two.world = 2;
  two.offset = 8 * 3;
  for (const auto& r : allRanks(two, 2)) {
    EXPECT_EQ(r.size(), 12u);  // (48 - 24) / 2
    seen.insert(r.begin(), r.end());
  }
  EXPECT_EQ(seen.size(), 48u);
  EXPECT_EQ(std::set<uint64_t>(seen.begin(), seen.end()).size(), 48u);  // each sample once
  // A world that never changed reads the same from an offset as it would
  // have read after skipping its first batches.
  SamplerConfig later = three;
  later.offset = 8 * 3;
  const auto whole = allRanks(three, 2), rest = allRanks(later, 2);
  for (size_t r = 0; r < whole.size(); ++r)
    EXPECT_EQ(std::vector<uint64_t>(whole[r].begin() + 8, whole[r].end()), rest[r]);
  later.offset = 49;
  EXPECT_THROW(DistributedSampler{later}, std::invalid_argument);
}

// An epoch that stops short of the dataset's end (max_steps_per_epoch): a
// new world shares out only what is left of the epoch, [offset, end), and
// pads its tail by repeating the head of what is left, as the first world
// pads the dataset (DistributedSampler, ElasticSampler): 11 positions left
// over 3 ranks give each 4, one of them twice.
TEST(DistributedSampler, AnEndStopsTheEpochShortOfTheDataset) {
  SamplerConfig three{48, 1, 3, 0, true, false, 9};
  three.offset = 19;
  three.end = 30;
  std::vector<uint64_t> order;  // the epoch's whole order, from one rank of one
  {
    SamplerConfig one{48, 1, 1, 0, true, false, 9};
    order = DistributedSampler(one).indices(4);
  }
  std::multiset<uint64_t> seen;
  for (const auto& r : allRanks(three, 4)) {
    EXPECT_EQ(r.size(), 4u);  // ceil(11 / 3)
    seen.insert(r.begin(), r.end());
  }
  std::multiset<uint64_t> expected(order.begin() + 19, order.begin() + 30);
  expected.insert(order[19]);  // the padding: the head of what is left
  EXPECT_EQ(seen, expected);
  three.end = 18;
  EXPECT_THROW(DistributedSampler{three}, std::invalid_argument);  // offset past the end
  three.end = 49;
  EXPECT_THROW(DistributedSampler{three}, std::invalid_argument);  // past the dataset
}

TEST(EpochPosition, CountsStepsAndTheirPositionsAndSaysWhenTheWorldChanged) {
  EpochPosition at = EpochPosition::after(3, 2, 64);  // resumed 2 steps into epoch 3, 64 positions a step
  EXPECT_EQ(at.samplePositions, 128u);
  EXPECT_TRUE(at.evenSteps(64));
  at.stepped(64);
  EXPECT_EQ(at.stepInEpoch, 3);
  EXPECT_TRUE(at.evenSteps(64));
  at.stepped(32);  // a smaller world's step: the loader's batches no longer line up
  EXPECT_EQ(at.samplePositions, 224u);
  EXPECT_FALSE(at.evenSteps(64));
  EXPECT_FALSE(at.evenSteps(32));
}

}  // namespace
}  // namespace dtb::core
