#include "gpu_clock.h"

#include <cmath>

namespace dtb::backend::nccl {
namespace {

int64_t steadyNs(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

}  // namespace

GpuAnchor::~GpuAnchor() {
  if (event) cudaEventDestroy(event);
}

std::shared_ptr<const GpuAnchor> GpuClock::anchorFor(cudaStream_t stream) {
  const auto now = std::chrono::steady_clock::now();
  if (anchor_ && now - anchoredAt_ < std::chrono::seconds(1)) return anchor_;
  // Busy: the anchor would be reached later than now. Try at the next launch.
  if (cudaStreamQuery(stream) != cudaSuccess || cudaStreamQuery(cudaStreamLegacy) != cudaSuccess) {
    cudaGetLastError();  // a query's error is not the launch's
    return anchor_;
  }
  auto anchor = std::make_shared<GpuAnchor>();
  if (cudaEventCreate(&anchor->event) != cudaSuccess) {
    cudaGetLastError();
    anchor->event = nullptr;
    return anchor_;
  }
  const auto recorded = std::chrono::steady_clock::now();
  if (cudaEventRecord(anchor->event, stream) != cudaSuccess) {
    cudaGetLastError();
    return anchor_;
  }
  anchor->hostNs = steadyNs(recorded);
  anchor_ = std::move(anchor);
  anchoredAt_ = now;
  return anchor_;
}

std::optional<int64_t> GpuClock::hostNs(const GpuAnchor& anchor, cudaEvent_t event) {
  float ms = 0;
  if (cudaEventElapsedTime(&ms, anchor.event, event) != cudaSuccess) {
    cudaGetLastError();
    return std::nullopt;
  }
  return anchor.hostNs + std::llround(static_cast<double>(ms) * 1e6);
}

}  // namespace dtb::backend::nccl
