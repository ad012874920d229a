// The data loader: batches in sampler order, with or without prefetch
// threads, a short last batch, normalisation, and failures that name the
// dataset.
#include "data/data_loader.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "plugin/loader.h"

namespace dtb::core {
namespace {

std::unique_ptr<PluginInstance> tiny(int64_t samples) {
  PluginLoader loader(SearchPath({DTBENCH_TEST_PLUGIN_DIR}));
  return openDataset(loader.load(PluginKind::kDataset, "tiny"), {{"samples", samples}});
}

// Every batch of one epoch, flattened to (first input element of each sample, label).
std::vector<std::pair<float, int32_t>> epoch(DataLoader& loader, uint64_t e,
                                             std::vector<uint32_t>* sizes = nullptr) {
  std::vector<std::pair<float, int32_t>> out;
  loader.startEpoch(e);
  while (auto batch = loader.next()) {
    if (sizes) sizes->push_back(batch->size);
    for (uint32_t n = 0; n < batch->size; ++n) out.emplace_back(batch->inputs[n * 4], batch->labels[n]);
  }
  return out;
}

TEST(DataLoader, BatchesFollowTheSamplerWithAShortLastBatch) {
  auto dataset = tiny(10);
  SamplerConfig sampling{10, 1, 1, 0, false, false, 0};
  DataLoader loader(*dataset, {0, 4, 0, false}, DistributedSampler(sampling));
  EXPECT_EQ(loader.batchesPerEpoch(), 3u);
  std::vector<uint32_t> sizes;
  auto samples = epoch(loader, 0, &sizes);
  EXPECT_EQ(sizes, (std::vector<uint32_t>{4, 4, 2}));
  ASSERT_EQ(samples.size(), 10u);
  for (size_t i = 0; i < samples.size(); ++i) {
    EXPECT_EQ(samples[i].first, float(4 * i));  // tiny: sample i starts at 4i
    EXPECT_EQ(samples[i].second, int32_t(i % 4));
  }
}

TEST(DataLoader, PrefetchThreadsGiveTheSameBatchesInTheSameOrder) {
  auto dataset = tiny(1000);
  SamplerConfig sampling{1000, 1, 2, 1, true, false, 9};
  DataLoader serial(*dataset, {0, 7, 0, false}, DistributedSampler(sampling));
  DataLoader parallel(*dataset, {0, 7, 4, false}, DistributedSampler(sampling));
  for (uint64_t e = 0; e < 3; ++e) EXPECT_EQ(epoch(serial, e), epoch(parallel, e)) << "epoch " << e;
  EXPECT_GE(parallel.waitSeconds(), 0.0);
}

// A restart resumes an epoch at a batch: the same batches from there on as
// the whole epoch has, serially and with prefetch threads.
TEST(DataLoader, AnEpochResumedMidwayGivesTheRestOfItsBatches) {
  auto dataset = tiny(1000);
  SamplerConfig sampling{1000, 1, 2, 1, true, false, 9};
  for (int threads : {0, 3}) {
    DataLoader whole(*dataset, {0, 7, threads, false}, DistributedSampler(sampling));
    DataLoader resumed(*dataset, {0, 7, threads, false}, DistributedSampler(sampling));
    const auto all = epoch(whole, 2);
    resumed.startEpoch(2, 5);
    std::vector<std::pair<float, int32_t>> rest;
    while (auto batch = resumed.next()) {
      for (uint32_t n = 0; n < batch->size; ++n) rest.emplace_back(batch->inputs[n * 4], batch->labels[n]);
    }
    ASSERT_EQ(rest.size(), all.size() - 5 * 7) << threads << " threads";
    EXPECT_TRUE(std::equal(rest.begin(), rest.end(), all.begin() + 5 * 7)) << threads << " threads";
    resumed.startEpoch(2, 1000);  // past the end: an empty epoch
    EXPECT_FALSE(resumed.next());
  }
}

TEST(DataLoader, DropLastBatch) {
  auto dataset = tiny(10);
  DataLoader loader(*dataset, {0, 4, 2, true}, DistributedSampler({10, 1, 1, 0, false, false, 0}));
  std::vector<uint32_t> sizes;
  epoch(loader, 0, &sizes);
  EXPECT_EQ(sizes, (std::vector<uint32_t>{4, 4}));
}

TEST(DataLoader, AFailedReadNamesTheDatasetAndItsMessage) {
  auto dataset = tiny(10);
  DataLoader loader(*dataset, {1, 4, 2, false},
                    DistributedSampler({10, 1, 1, 0, false, false, 0}));  // no split 1
  loader.startEpoch(0);
  try {
    loader.next();
    FAIL() << "read a split that does not exist";
  } catch (const PluginCallError& e) {
    EXPECT_NE(std::string(e.what()).find("dataset 'tiny'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("tiny has one split"), std::string::npos) << e.what();
  }
}

TEST(DataLoader, StoppingMidEpochDoesNotHang) {
  auto dataset = tiny(1000);
  DataLoader loader(*dataset, {0, 3, 3, false}, DistributedSampler({1000, 1, 1, 0, true, false, 0}));
  loader.startEpoch(0);
  ASSERT_TRUE(loader.next());
  loader.startEpoch(1);  // abandons epoch 0's prefetch
  EXPECT_EQ(epoch(loader, 2).size(), 1000u);
}

}  // namespace
}  // namespace dtb::core
