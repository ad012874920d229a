#include "cuda/cuda_memory.h"
#include "cuda/gpu_stream_order.h"

namespace dtb::core {

GpuStreamOrder::GpuStreamOrder(int device) : device_(device) {
  throw GpuUnavailable("this build of dtbench has no CUDA");
}

GpuStreamOrder::~GpuStreamOrder() = default;

void GpuStreamOrder::after(void*, void*) { throw GpuUnavailable("this build of dtbench has no CUDA"); }

void GpuStreamOrder::finish(void*) { throw GpuUnavailable("this build of dtbench has no CUDA"); }

GpuStreamMarks::GpuStreamMarks(void* stream, int device) : stream_(stream), device_(device) {
  throw GpuUnavailable("this build of dtbench has no CUDA");
}

GpuStreamMarks::~GpuStreamMarks() = default;

void GpuStreamMarks::record() { throw GpuUnavailable("this build of dtbench has no CUDA"); }

void GpuStreamMarks::begin() { throw GpuUnavailable("this build of dtbench has no CUDA"); }

void GpuStreamMarks::mark() { throw GpuUnavailable("this build of dtbench has no CUDA"); }

std::vector<double> GpuStreamMarks::read() { throw GpuUnavailable("this build of dtbench has no CUDA"); }

}  // namespace dtb::core
