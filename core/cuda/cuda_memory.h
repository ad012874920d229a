// GPU memory and timing for the host: what alloc() on DTB_DEVICE_CUDA gives a
// plugin, and what `dtbench comm` moves and times on a GPU. A build without
// CUDA has the same calls; they throw GpuUnavailable saying so.
#pragma once

#include <cstdint>
#include <stdexcept>

namespace dtb::core {

// No GPU to do this on (a build without CUDA, no driver, no such device).
class GpuUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// cudaMalloc on GPU `device`, zeroed; throws std::bad_alloc when it has too little
// free memory, GpuUnavailable when there is no such GPU.
void* gpuAllocate(uint64_t bytes, int device);
void gpuFree(void* ptr, int device);
// Pinned (page-locked) host memory, cudaMallocHost: staging whose copies to
// and from a GPU run at full speed. Throws as gpuAllocate does. `device`
// (when >= 0) is made the calling thread's GPU first: a thread that never
// chose one would make a CUDA context on GPU 0 (the loader's threads).
void* pinnedAllocate(uint64_t bytes, int device = -1);
void pinnedFree(void* ptr);
// Whether `p` is memory of GPU `device` (device or managed memory there):
// a kernel given anything else would fault and break the whole CUDA
// context, so the host's kernels check their pointers first. False in a
// build without CUDA.
bool isMemoryOfGpu(const void* p, int device);

// Synchronous: the bytes are on the GPU when it returns, for every stream.
void copyToGpu(void* gpu, const void* host, uint64_t bytes, int device);
void copyFromGpu(void* host, const void* gpu, uint64_t bytes, int device);
// Enqueued on `stream` (a cudaStream_t), not waited for: work ordered on a
// stream (the tests of set_stream). `host` must stay valid until it ran.
void copyToGpuOn(void* gpu, const void* host, uint64_t bytes, void* stream);
void copyOnGpu(void* to, const void* from, uint64_t bytes, void* stream);

// GPU memory owned for a scope (the sweep's buffers, staging for figures
// exchanged over a GPU backend).
class GpuBuffer {
 public:
  GpuBuffer(uint64_t bytes, int device) : data_(gpuAllocate(bytes, device)), bytes_(bytes), device_(device) {}
  ~GpuBuffer() { gpuFree(data_, device_); }
  GpuBuffer(const GpuBuffer&) = delete;
  GpuBuffer& operator=(const GpuBuffer&) = delete;
  void* data() const { return data_; }
  uint64_t bytes() const { return bytes_; }

 private:
  void* data_;
  uint64_t bytes_;
  int device_;
};

// Bytes of GPU `device`'s memory in use, as the driver counts them (total
// minus free, cudaMemGetInfo: every process's allocations and CUDA
// contexts on it, what nvidia-smi shows). Throws GpuUnavailable.
uint64_t gpuUsedBytes(int device);

// Device-to-device copy bandwidth of GPU `device` (bytes copied per second
// / 1e9, the median of `repetitions` copies timed with CUDA events): the
// GPU counterpart of memcpyGbps, the reference a GPU sweep is read against.
double gpuMemcpyGbps(int64_t bytes, int device, int repetitions = 10);

// A stream of GPU `device` with two events around the work enqueued between
// start() and stop(): the GPU's own time for it, as nccl-tests and PyTorch's
// benchmarks take it.
class GpuTimer {
 public:
  explicit GpuTimer(int device);
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  void* stream() const { return stream_; }  // a cudaStream_t
  void start();
  void stop();
  // Waits for the stop event; the seconds between the two.
  double seconds();

 private:
  // (A build without CUDA has them but never reads them.)
  [[maybe_unused]] int device_;
  void* stream_ = nullptr;
  [[maybe_unused]] void* start_ = nullptr;
  [[maybe_unused]] void* stop_ = nullptr;
};

}  // namespace dtb::core
