// The data path to a GPU: each batch the loader made (in pinned host memory)
// is copied to the GPU on a copy stream of its own while the step before it
// computes, so a step finds its inputs there already, as NVIDIA's
// data_prefetcher and PyTorch's pin_memory with non_blocking copies do.
// Two slots on the GPU take turns: batch i in one while batch i + 1 is
// copied into the other. A step reads its slot until it ends, so next() is
// called only once the previous batch's step is over (the model's backward
// returns after its GPU work has run: docs/gpu.md); it then refills that
// slot.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "data/data_loader.h"
#include "dtbench/dtbench.h"

namespace dtb::core {

// Where the prefetcher copies to: two slots of device memory and a copy
// into each that the host can wait for. The GPU's is a GpuCopyStream over
// two GpuBuffers (makeGpuBatchCopier); a test can put a stand-in here.
class BatchCopier {
 public:
  virtual ~BatchCopier() = default;
  virtual dtb_device_t device() const = 0;
  virtual float* slot(int index) = 0;
  // Queues the copy of `count` values from `host` into slot `index`.
  virtual void copyIn(int index, const float* host, uint64_t count) = 0;
  // Returns once slot `index`'s copy has landed.
  virtual void wait(int index) = 0;
};

// Two slots of `maxCount` f32 values on GPU `gpu`; throws GpuUnavailable
// without one.
std::unique_ptr<BatchCopier> makeGpuBatchCopier(int gpu, uint64_t maxCount);

class DevicePrefetcher {
 public:
  DevicePrefetcher(DataLoader& loader, std::unique_ptr<BatchCopier> copier);
  ~DevicePrefetcher();
  DevicePrefetcher(const DevicePrefetcher&) = delete;
  DevicePrefetcher& operator=(const DevicePrefetcher&) = delete;

  // The loader began an epoch: what was prefetched from the last is dropped
  // (once its copy landed: the host memory it reads stays until then).
  void startEpoch();
  // The next batch with `deviceInputs` set to its copy on the device, or
  // nullopt at the end of the epoch; the copy of the batch after it is
  // queued before it returns. Rethrows the loader's failures.
  std::optional<Batch> next();
  // Seconds next() spent waiting for copies to land.
  double waitSeconds() const { return static_cast<double>(waitNanos_) / 1e9; }

 private:
  void fill(int slot);
  void drain();

  DataLoader& loader_;
  std::unique_ptr<BatchCopier> copier_;
  std::optional<Batch> pending_[2];  // the host batch each slot's copy reads from
  int current_ = 0;
  bool primed_ = false;
  int64_t waitNanos_ = 0;
};

}  // namespace dtb::core
