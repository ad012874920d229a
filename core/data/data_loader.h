// Batches for one rank: the sampler's indices read through the dataset
// plugin, normalised to f32, prefetched by `loader_threads` threads so the
// step rarely waits (the wait that remains is the step's data time).
//
// Samples are scaled as torchvision's ToTensor + Normalize do: U8 to [0, 1],
// then (x - mean[c]) / std[c] with the dataset's per-channel statistics
// (channel = the first sample dimension). The last batch of an epoch may be
// smaller (DataLoader's drop_last = False) unless dropLastBatch is set.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "data/batch_memory.h"
#include "data/distributed_sampler.h"
#include "host/plugin_instance.h"

namespace dtb::core {

struct Batch {
  uint32_t size = 0;
  BatchInputs inputs;  // size x sample elements, normalised
  std::vector<int32_t> labels;
  // Set by a DevicePrefetcher: the inputs' copy on a GPU, which the model
  // reads instead (device_prefetcher.h).
  const float* deviceInputs = nullptr;
  dtb_device_t inputDevice{DTB_DEVICE_HOST, 0};
};

struct LoaderConfig {
  uint32_t split = 0;
  uint32_t batchSize = 1;
  int threads = 2;  // 0: read on the caller's thread
  bool dropLastBatch = false;
  // Where the inputs go: null, the heap; else this pool's blocks (pinned
  // memory for a run on a GPU: batch_memory.h).
  std::shared_ptr<BlockPool> inputPool;
};

class DataLoader {
 public:
  // Reads the dataset's info; throws PluginCallError or std::invalid_argument.
  DataLoader(PluginInstance& dataset, LoaderConfig config, DistributedSampler sampler);
  ~DataLoader();
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

  const dtb_dataset_info_t& info() const { return info_; }
  uint64_t sampleElements() const { return sampleElements_; }
  uint64_t batchesPerEpoch() const;

  // Starts an epoch (stopping any prefetch of the previous one) at its batch
  // `firstBatch`: a restart resumes an epoch without reading what was done.
  void startEpoch(uint64_t epoch, uint64_t firstBatch = 0);
  // The next batch in order, or nullopt at the end of the epoch. Rethrows a
  // failed read as PluginCallError naming the dataset.
  std::optional<Batch> next();
  // Seconds next() spent waiting since the loader was made.
  double waitSeconds() const { return waitNanos_ / 1e9; }

 private:
  Batch read(uint64_t batchIndex);
  void prefetch();
  void stopPrefetch();

  PluginInstance& dataset_;
  const dtb_dataset_plugin_v1_t& api_;
  LoaderConfig config_;
  DistributedSampler sampler_;
  dtb_dataset_info_t info_{};
  uint64_t sampleElements_ = 1;
  std::vector<float> mean_, std_;

  std::vector<uint64_t> epochIndices_;
  uint64_t nextToReturn_ = 0;
  uint64_t nextToRead_ = 0;  // guarded by mutex_
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<uint64_t, Batch> ready_;
  std::optional<std::string> failure_;
  dtb_status_t failureStatus_ = DTB_STATUS_OK;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
  std::atomic<int64_t> waitNanos_{0};
};

}  // namespace dtb::core
