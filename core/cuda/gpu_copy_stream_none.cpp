#include "cuda/cuda_memory.h"
#include "cuda/gpu_copy_stream.h"

namespace dtb::core {

GpuCopyStream::GpuCopyStream(int device, int) : device_(device) {
  throw GpuUnavailable("this build of dtbench has no CUDA");
}

GpuCopyStream::~GpuCopyStream() = default;

void GpuCopyStream::copyToGpu(void*, const void*, uint64_t, int) {
  throw GpuUnavailable("this build of dtbench has no CUDA");
}

void GpuCopyStream::wait(int) { throw GpuUnavailable("this build of dtbench has no CUDA"); }

}  // namespace dtb::core
