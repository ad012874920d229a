// A stream of one GPU for copies from host memory that overlap the GPU's
// other work (a non-blocking stream: it waits for nothing else queued on
// the GPU), with a numbered event per destination, so the host can wait
// for one copy and not the others. What the data path copies batches to
// the GPU on (data/device_prefetcher.h), as NVIDIA's and PyTorch's
// prefetchers use a side stream. A build without CUDA has the same calls;
// the constructor throws GpuUnavailable.
#pragma once

#include <cstdint>

namespace dtb::core {

class GpuCopyStream {
 public:
  GpuCopyStream(int device, int events);
  ~GpuCopyStream();
  GpuCopyStream(const GpuCopyStream&) = delete;
  GpuCopyStream& operator=(const GpuCopyStream&) = delete;

  // Queues the copy of `bytes` from `host` to `gpu` (memory of this GPU),
  // then records event `event` after it. From pinned host memory it runs
  // while the CPU and the GPU go on; `host` must stay as it is until
  // wait(event) returned. A CUDA error is std::runtime_error saying which.
  void copyToGpu(void* gpu, const void* host, uint64_t bytes, int event);
  // Returns once the copy before event `event` has landed (at once when
  // none was queued).
  void wait(int event);

 private:
  void release();
  // (Unused in a build without CUDA, whose calls only throw.)
  [[maybe_unused]] int device_;
  [[maybe_unused]] void* stream_ = nullptr;   // a cudaStream_t
  [[maybe_unused]] void** events_ = nullptr;  // cudaEvent_t each
  [[maybe_unused]] int eventCount_ = 0;
};

}  // namespace dtb::core
