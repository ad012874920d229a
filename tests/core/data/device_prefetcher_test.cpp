// The data path to a GPU, its logic on the CPU: batches from a pooled
// ("pinned") loader reach the step in order with their inputs in the
// copier's slot, the copy of the batch after is queued before a step runs
// (into the slot the step before used), an epoch's leftovers are dropped
// only once their copy landed, and the pool recycles its blocks. The
// stand-in copier keeps its slots in host memory and runs each copy only
// when waited for, as a stream would have by then; it fails the test when
// a slot still being read is written, or when a copy's source is gone.
// The GPU's copier (GpuCopyStream) runs in run.gpu_training on a GPU.
#include "data/device_prefetcher.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <vector>

#include "plugin/loader.h"

namespace dtb::core {
namespace {

std::unique_ptr<PluginInstance> tinyForPrefetch(int64_t samples) {
  PluginLoader loader(SearchPath({DTBENCH_TEST_PLUGIN_DIR}));
  return openDataset(loader.load(PluginKind::kDataset, "tiny"), {{"samples", samples}});
}

struct CopyLog {
  int copies = 0, waits = 0;
  int reading = -1;  // the slot the step in progress reads (-1 once it is over)
};

class StandInCopier final : public BatchCopier {
 public:
  StandInCopier(uint64_t maxCount, CopyLog& log) : log_(log) {
    for (auto& s : slots_) s.assign(maxCount, -1.0f);
  }
  dtb_device_t device() const override { return {DTB_DEVICE_CUDA, 3}; }
  float* slot(int index) override {
    log_.reading = index;
    return slots_[index].data();
  }
  void copyIn(int index, const float* host, uint64_t count) override {
    EXPECT_NE(index, log_.reading) << "a copy into the slot the running step reads";
    EXPECT_FALSE(queued_[index].source) << "a second copy into a slot whose first was never waited for";
    queued_[index] = {host, count, std::vector<float>(host, host + count)};
    ++log_.copies;
  }
  void wait(int index) override {
    ++log_.waits;
    Queued& q = queued_[index];
    if (!q.source) return;
    // The source must still hold what it held when the copy was queued.
    for (uint64_t i = 0; i < q.count; ++i)
      ASSERT_EQ(q.source[i], q.expected[i]) << "the batch was freed too soon";
    std::copy(q.source, q.source + q.count, slots_[index].begin());
    q = {};
  }

 private:
  struct Queued {
    const float* source = nullptr;
    uint64_t count = 0;
    std::vector<float> expected;
  };
  CopyLog& log_;
  std::vector<float> slots_[2];
  Queued queued_[2];
};

TEST(DevicePrefetcher, HandsOutEachBatchOnTheDeviceWithTheNextOneAlreadyQueued) {
  auto dataset = tinyForPrefetch(10);
  auto pool = std::make_shared<BlockPool>([](size_t bytes) { return std::malloc(bytes); }, std::free);
  DataLoader loader(*dataset, {0, 4, 2, false, pool}, DistributedSampler({10, 1, 1, 0, false, false, 0}));
  CopyLog log;
  DevicePrefetcher prefetcher(loader, std::make_unique<StandInCopier>(4 * loader.sampleElements(), log));
  for (uint64_t epoch = 0; epoch < 2; ++epoch) {
    loader.startEpoch(epoch);
    prefetcher.startEpoch();
    std::vector<uint32_t> sizes;
    float expectedFirst = 0;
    while (std::optional<Batch> batch = prefetcher.next()) {
      sizes.push_back(batch->size);
      ASSERT_NE(batch->deviceInputs, nullptr);
      EXPECT_EQ(batch->inputDevice.type, DTB_DEVICE_CUDA);
      EXPECT_EQ(batch->inputDevice.index, 3);
      EXPECT_TRUE(batch->inputs.pinned());
      // The step's inputs, on the "device", are the batch's own (tiny:
      // sample i starts at 4i).
      for (uint32_t n = 0; n < batch->size; ++n) {
        EXPECT_EQ(batch->deviceInputs[n * 4], expectedFirst) << "epoch " << epoch;
        EXPECT_EQ(batch->labels[n], static_cast<int32_t>(expectedFirst / 4) % 4);
        expectedFirst += 4;
      }
      log.reading = -1;  // the step is over
    }
    EXPECT_EQ(sizes, (std::vector<uint32_t>{4, 4, 2}));
  }
  EXPECT_EQ(log.copies, 6) << "each batch copied once";
  EXPECT_LE(pool->allocated(), 8u) << "the pool recycles its blocks";
}

TEST(DevicePrefetcher, AnEpochCutShortDropsItsPrefetchedBatchOnceItsCopyLanded) {
  auto dataset = tinyForPrefetch(40);
  auto pool = std::make_shared<BlockPool>([](size_t bytes) { return std::malloc(bytes); }, std::free);
  DataLoader loader(*dataset, {0, 4, 0, false, pool}, DistributedSampler({40, 1, 1, 0, false, false, 0}));
  CopyLog log;
  DevicePrefetcher prefetcher(loader, std::make_unique<StandInCopier>(4 * loader.sampleElements(), log));
  loader.startEpoch(0);
  prefetcher.startEpoch();
  ASSERT_TRUE(prefetcher.next());  // max_steps_per_epoch = 1: the second batch is queued, never used
  log.reading = -1;
  const int waitsBefore = log.waits;
  loader.startEpoch(1);
  prefetcher.startEpoch();
  EXPECT_EQ(log.waits, waitsBefore + 1) << "the queued copy is waited for before its batch is let go";
  std::optional<Batch> first = prefetcher.next();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->deviceInputs[0], 0.0f) << "the new epoch starts at its own first batch";
}

TEST(BlockPool, GivesBackBlocksAndReusesThem) {
  int allocations = 0;
  auto pool = std::make_shared<BlockPool>(
      [&](size_t bytes) {
        ++allocations;
        return std::malloc(bytes);
      },
      std::free);
  {
    BatchInputs a(pool), b(pool);
    a.resize(100);
    b.resize(50);
    EXPECT_EQ(pool->idle(), 0u);
  }
  EXPECT_EQ(pool->idle(), 2u);
  BatchInputs c(pool);
  c.resize(40);  // the 50-value block fits best
  EXPECT_EQ(allocations, 2);
  EXPECT_EQ(pool->idle(), 1u);
  BatchInputs d(pool);
  d.resize(100);  // and the full one is still there
  EXPECT_EQ(allocations, 2);
  BatchInputs heap;
  heap.resize(10);
  EXPECT_FALSE(heap.pinned());
  heap[9] = 1.0f;
  EXPECT_EQ(heap.data()[9], 1.0f);
}

}  // namespace
}  // namespace dtb::core
