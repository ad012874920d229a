// GPU memory in a build without the CUDA toolkit: there is none.
#include "cuda/cuda_memory.h"

namespace dtb::core {
namespace {

[[noreturn]] void unavailable() {
  throw GpuUnavailable("this dtbench was built without CUDA (no toolkit found, or -DDTBENCH_CUDA=OFF)");
}

}  // namespace

void* gpuAllocate(uint64_t bytes, int /*device*/) {
  if (bytes == 0) return nullptr;
  unavailable();
}
void gpuFree(void* /*ptr*/, int /*device*/) {}
void* pinnedAllocate(uint64_t bytes, int /*device*/) {
  if (bytes == 0) return nullptr;
  unavailable();
}
void pinnedFree(void* /*ptr*/) {}
void copyToGpu(void*, const void*, uint64_t, int) { unavailable(); }
void copyFromGpu(void*, const void*, uint64_t, int) { unavailable(); }

uint64_t gpuUsedBytes(int) { unavailable(); }

bool isMemoryOfGpu(const void*, int) { return false; }

void copyToGpuOn(void*, const void*, uint64_t, void*) { unavailable(); }
void copyOnGpu(void*, const void*, uint64_t, void*) { unavailable(); }
double gpuMemcpyGbps(int64_t, int, int) { unavailable(); }

GpuTimer::GpuTimer(int device) : device_(device) { unavailable(); }
GpuTimer::~GpuTimer() = default;
void GpuTimer::start() { unavailable(); }
void GpuTimer::stop() { unavailable(); }
double GpuTimer::seconds() { unavailable(); }

}  // namespace dtb::core
