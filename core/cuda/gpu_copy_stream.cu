#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "cuda/cuda_error.h"
#include "cuda/cuda_memory.h"
#include "cuda/gpu_copy_stream.h"

namespace dtb::core {

GpuCopyStream::GpuCopyStream(int device, int events) : device_(device), eventCount_(events) {
  requireGpu(device, "to copy batches to");
  checkCuda(cudaSetDevice(device), "cudaSetDevice");
  cudaStream_t stream = nullptr;
  checkCuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate (the copy stream)");
  stream_ = stream;
  events_ = new void*[static_cast<size_t>(events)]();
  try {
    for (int i = 0; i < events; ++i) {
      cudaEvent_t event = nullptr;
      // Untimed: recording one costs a fraction of a timing event (docs/gpu.md).
      checkCuda(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate (a copy's event)");
      events_[i] = event;
    }
  } catch (...) {
    release();  // a constructor that throws has no destructor run
    throw;
  }
}

GpuCopyStream::~GpuCopyStream() { release(); }

void GpuCopyStream::release() {
  cudaSetDevice(device_);
  if (stream_) cudaStreamSynchronize(static_cast<cudaStream_t>(stream_));
  for (int i = 0; events_ && i < eventCount_; ++i) {
    if (events_[i]) cudaEventDestroy(static_cast<cudaEvent_t>(events_[i]));
  }
  delete[] events_;
  events_ = nullptr;
  if (stream_) cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
  stream_ = nullptr;
}

void GpuCopyStream::copyToGpu(void* gpu, const void* host, uint64_t bytes, int event) {
  if (event < 0 || event >= eventCount_)
    throw std::invalid_argument("no copy event " + std::to_string(event));
  if (!isMemoryOfGpu(gpu, device_))
    throw std::invalid_argument("the destination is not memory of GPU " + std::to_string(device_));
  checkCuda(cudaSetDevice(device_), "cudaSetDevice");
  auto stream = static_cast<cudaStream_t>(stream_);
  checkCuda(cudaMemcpyAsync(gpu, host, bytes, cudaMemcpyHostToDevice, stream), "a batch to the GPU");
  checkCuda(cudaEventRecord(static_cast<cudaEvent_t>(events_[event]), stream), "cudaEventRecord (a copy)");
}

void GpuCopyStream::wait(int event) {
  if (event < 0 || event >= eventCount_)
    throw std::invalid_argument("no copy event " + std::to_string(event));
  checkCuda(cudaEventSynchronize(static_cast<cudaEvent_t>(events_[event])), "waiting for a batch's copy");
}

}  // namespace dtb::core
