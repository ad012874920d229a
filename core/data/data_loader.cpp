#include "data/data_loader.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace dtb::core {

DataLoader::DataLoader(PluginInstance& dataset, LoaderConfig config, DistributedSampler sampler)
    : dataset_(dataset),
      api_(dataset.plugin().descriptor<dtb_dataset_plugin_v1_t>()),
      config_(config),
      sampler_(sampler) {
  if (config_.batchSize == 0) throw std::invalid_argument("batch size must be at least 1");
  info_.struct_size = sizeof(info_);
  dataset_.check("info", api_.info(dataset_.context(), &info_));
  if (info_.sample_dtype != DTB_DTYPE_U8 && info_.sample_dtype != DTB_DTYPE_F32) {
    throw std::invalid_argument(dataset_.plugin().label() + ": samples must be u8 or f32");
  }
  for (int d = 0; d < info_.sample_ndim; ++d) sampleElements_ *= static_cast<uint64_t>(info_.sample_shape[d]);
  const int64_t channels = info_.sample_ndim > 0 ? info_.sample_shape[0] : 1;
  if (info_.mean && info_.std) {
    mean_.assign(info_.mean, info_.mean + channels);
    std_.assign(info_.std, info_.std + channels);
  }
}

DataLoader::~DataLoader() { stopPrefetch(); }

uint64_t DataLoader::batchesPerEpoch() const {
  const uint64_t n = sampler_.samplesPerRank();
  return config_.dropLastBatch ? n / config_.batchSize : (n + config_.batchSize - 1) / config_.batchSize;
}

void DataLoader::stopPrefetch() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
}

void DataLoader::startEpoch(uint64_t epoch, uint64_t firstBatch) {
  stopPrefetch();
  epochIndices_ = sampler_.indices(epoch);
  nextToReturn_ = std::min(firstBatch, batchesPerEpoch());
  nextToRead_ = nextToReturn_;
  ready_.clear();
  failure_.reset();
  stopping_ = false;
  for (int t = 0; t < config_.threads; ++t) workers_.emplace_back([this] { prefetch(); });
}

Batch DataLoader::read(uint64_t batchIndex) {
  const uint64_t first = batchIndex * config_.batchSize;
  const uint32_t size =
      static_cast<uint32_t>(std::min<uint64_t>(config_.batchSize, epochIndices_.size() - first));
  Batch batch;
  batch.size = size;
  batch.inputs = BatchInputs(config_.inputPool);
  batch.labels.resize(size);
  batch.inputs.resize(size * sampleElements_);
  const uint64_t* indices = epochIndices_.data() + first;
  if (info_.sample_dtype == DTB_DTYPE_U8) {
    std::vector<uint8_t> raw(size * sampleElements_);
    dataset_.check(
        "read", api_.read(dataset_.context(), config_.split, indices, size, raw.data(), batch.labels.data()));
    for (size_t i = 0; i < raw.size(); ++i) batch.inputs[i] = raw[i] / 255.0f;
  } else {
    dataset_.check("read", api_.read(dataset_.context(), config_.split, indices, size, batch.inputs.data(),
                                     batch.labels.data()));
  }
  if (!mean_.empty()) {
    const uint64_t perChannel = sampleElements_ / mean_.size();
    for (uint32_t n = 0; n < size; ++n) {
      float* x = batch.inputs.data() + n * sampleElements_;
      for (size_t c = 0; c < mean_.size(); ++c) {
        for (uint64_t k = 0; k < perChannel; ++k)
          x[c * perChannel + k] = (x[c * perChannel + k] - mean_[c]) / std_[c];
      }
    }
  }
  return batch;
}

void DataLoader::prefetch() {
  // Stay at most 2 batches per thread ahead of the consumer: bounded memory.
  const uint64_t depth = 2 * static_cast<uint64_t>(config_.threads);
  for (;;) {
    uint64_t mine = 0;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || nextToRead_ < nextToReturn_ + depth; });
      if (stopping_ || nextToRead_ >= batchesPerEpoch() || failure_) return;
      mine = nextToRead_++;
    }
    try {
      Batch batch = read(mine);
      std::lock_guard lock(mutex_);
      ready_[mine] = std::move(batch);
    } catch (const PluginCallError& e) {
      std::lock_guard lock(mutex_);
      failure_ = e.what();
      failureStatus_ = e.status();
    }
    changed_.notify_all();
  }
}

std::optional<Batch> DataLoader::next() {
  if (nextToReturn_ >= batchesPerEpoch()) return std::nullopt;
  const auto start = std::chrono::steady_clock::now();
  if (config_.threads == 0) {
    Batch batch = read(nextToReturn_++);
    waitNanos_ +=
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
            .count();
    return batch;
  }
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return failure_ || ready_.contains(nextToReturn_); });
  waitNanos_ +=
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
  if (failure_) throw PluginCallError(*failure_, failureStatus_);
  Batch batch = std::move(ready_.at(nextToReturn_));
  ready_.erase(nextToReturn_++);
  lock.unlock();
  changed_.notify_all();
  return batch;
}

}  // namespace dtb::core
