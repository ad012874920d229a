#include <string>

#include "cuda_check.h"
#include "gpu_memory.h"

namespace dtb::nn::cuda {

void* GpuMemory::allocate(size_t bytes, dtb_mem_category_t category, const char* what) const {
  void* block = nullptr;
  if (host_ == nullptr) {
    check(cudaMalloc(&block, bytes > 0 ? bytes : 1), what);
    return block;
  }
  const dtb_status_t status =
      host_->alloc(host_->ctx, bytes > 0 ? bytes : 1, {DTB_DEVICE_CUDA, device_}, category, &block);
  if (status != DTB_STATUS_OK) {
    throw Error(status,
                std::string(what) + ": " + std::to_string(bytes) + " bytes on GPU " +
                    std::to_string(device_) + ": " +
                    (status == DTB_STATUS_OUT_OF_MEMORY
                         ? "out of GPU memory"
                         : "the host could not allocate them (status " + std::to_string(status) + ")"));
  }
  return block;
}

void GpuMemory::release(void* block) const noexcept {
  if (block == nullptr) return;
  if (host_ == nullptr) {
    cudaFree(block);
  } else {
    host_->free(host_->ctx, block);
  }
}

}  // namespace dtb::nn::cuda
