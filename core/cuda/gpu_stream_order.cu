#include <cuda_runtime.h>

#include <string>

#include "cuda/cuda_error.h"
#include "cuda/cuda_memory.h"
#include "cuda/gpu_stream_order.h"

namespace dtb::core {

GpuStreamOrder::GpuStreamOrder(int device) : device_(device) {
  requireGpu(device, "to order streams on");
  checkCuda(cudaSetDevice(device), "cudaSetDevice");
  cudaEvent_t event = nullptr;
  // Untimed: it only orders, and an untimed event costs less to record.
  checkCuda(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate (stream order)");
  event_ = event;
}

GpuStreamOrder::~GpuStreamOrder() {
  if (event_) cudaEventDestroy(static_cast<cudaEvent_t>(event_));
}

void GpuStreamOrder::after(void* waiting, void* queued) {
  if (waiting == queued) return;
  checkCuda(cudaSetDevice(device_), "cudaSetDevice");
  auto event = static_cast<cudaEvent_t>(event_);
  checkCuda(cudaEventRecord(event, static_cast<cudaStream_t>(queued)), "cudaEventRecord (stream order)");
  checkCuda(cudaStreamWaitEvent(static_cast<cudaStream_t>(waiting), event, 0), "cudaStreamWaitEvent");
}

void GpuStreamOrder::finish(void* stream) {
  checkCuda(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "waiting for a stream's work");
}

GpuStreamMarks::GpuStreamMarks(void* stream, int device) : stream_(stream), device_(device) {
  requireGpu(device, "to time a stream on");
}

GpuStreamMarks::~GpuStreamMarks() {
  for (void* event : events_) cudaEventDestroy(static_cast<cudaEvent_t>(event));
}

void GpuStreamMarks::record() {
  checkCuda(cudaSetDevice(device_), "cudaSetDevice");
  if (used_ == events_.size()) {
    cudaEvent_t event = nullptr;
    checkCuda(cudaEventCreate(&event), "cudaEventCreate (a backward mark)");
    events_.push_back(event);
  }
  checkCuda(cudaEventRecord(static_cast<cudaEvent_t>(events_[used_++]), static_cast<cudaStream_t>(stream_)),
            "cudaEventRecord (a backward mark)");
}

void GpuStreamMarks::begin() {
  used_ = 0;
  record();
}

void GpuStreamMarks::mark() {
  if (used_ == 0) begin();  // a mark without an origin: from here
  record();
}

std::vector<double> GpuStreamMarks::read() {
  std::vector<double> seconds;
  if (used_ < 2) return seconds;
  checkCuda(cudaEventSynchronize(static_cast<cudaEvent_t>(events_[used_ - 1])),
            "waiting for a backward mark");
  const auto origin = static_cast<cudaEvent_t>(events_[0]);
  for (size_t i = 1; i < used_; ++i) {
    float ms = 0;
    checkCuda(cudaEventElapsedTime(&ms, origin, static_cast<cudaEvent_t>(events_[i])),
              "cudaEventElapsedTime");
    seconds.push_back(static_cast<double>(ms) / 1000.0);
  }
  return seconds;
}

}  // namespace dtb::core
