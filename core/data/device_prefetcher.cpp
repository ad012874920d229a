#include "data/device_prefetcher.h"

#include <chrono>
#include <stdexcept>
#include <string>

#include "cuda/cuda_memory.h"
#include "cuda/gpu_copy_stream.h"

namespace dtb::core {
namespace {

class GpuBatchCopier final : public BatchCopier {
 public:
  GpuBatchCopier(int gpu, uint64_t maxCount)
      : gpu_(gpu),
        maxCount_(maxCount),
        stream_(gpu, 2),
        slots_{GpuBuffer(maxCount * sizeof(float), gpu), GpuBuffer(maxCount * sizeof(float), gpu)} {}

  dtb_device_t device() const override { return {DTB_DEVICE_CUDA, gpu_}; }
  float* slot(int index) override { return static_cast<float*>(slots_[index].data()); }
  void copyIn(int index, const float* host, uint64_t count) override {
    if (count > maxCount_) {
      throw std::invalid_argument("a batch of " + std::to_string(count) + " values is larger than the " +
                                  std::to_string(maxCount_) + " the GPU's batch slots hold");
    }
    stream_.copyToGpu(slots_[index].data(), host, count * sizeof(float), index);
  }
  void wait(int index) override { stream_.wait(index); }

 private:
  int gpu_;
  uint64_t maxCount_;
  GpuCopyStream stream_;
  GpuBuffer slots_[2];
};

}  // namespace

std::unique_ptr<BatchCopier> makeGpuBatchCopier(int gpu, uint64_t maxCount) {
  return std::make_unique<GpuBatchCopier>(gpu, maxCount);
}

DevicePrefetcher::DevicePrefetcher(DataLoader& loader, std::unique_ptr<BatchCopier> copier)
    : loader_(loader), copier_(std::move(copier)) {}

DevicePrefetcher::~DevicePrefetcher() {
  try {
    drain();
  } catch (const std::exception&) {
    // A GPU in error: nothing will copy any more, and the batches may go.
  }
}

void DevicePrefetcher::drain() {
  for (int slot = 0; slot < 2; ++slot) {
    if (pending_[slot]) copier_->wait(slot);
    pending_[slot].reset();
  }
}

void DevicePrefetcher::startEpoch() {
  drain();
  current_ = 0;
  primed_ = false;
}

void DevicePrefetcher::fill(int slot) {
  std::optional<Batch> batch = loader_.next();
  if (!batch) return;
  copier_->copyIn(slot, batch->inputs.data(), batch->inputs.size());
  pending_[slot] = std::move(batch);
}

std::optional<Batch> DevicePrefetcher::next() {
  if (!primed_) {
    primed_ = true;
    fill(current_);
  }
  if (!pending_[current_]) return std::nullopt;  // the epoch's batches are done
  const auto start = std::chrono::steady_clock::now();
  copier_->wait(current_);
  waitNanos_ +=
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
  Batch batch = std::move(*pending_[current_]);
  pending_[current_].reset();
  batch.deviceInputs = copier_->slot(current_);
  batch.inputDevice = copier_->device();
  // The other slot's batch was the step before this one's, which is over:
  // the batch after this one is copied there while this one's step runs.
  current_ ^= 1;
  fill(current_);
  return batch;
}

}  // namespace dtb::core
