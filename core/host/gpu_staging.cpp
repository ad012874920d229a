#include "host/gpu_staging.h"

#include "cuda/cuda_memory.h"
#include "dtbench/backend.h"
#include "dtbench/plugin.hpp"

namespace dtb::core {

GpuStaging::~GpuStaging() {
  for (const auto& [buffer, bytes] : sizes_) pinnedFree(buffer);
}

std::shared_ptr<GpuStaging::Staged> GpuStaging::stage(const dtb_tensor_t& gpu, bool copyIn) {
  auto staged = std::make_shared<Staged>();
  staged->gpu = gpu.data;
  staged->device = gpu.device.index;
  staged->bytes = gpu.count * dtypeSize(gpu.dtype);
  void* pinned = nullptr;
  {
    std::lock_guard lock(mutex_);
    auto it = free_.lower_bound(staged->bytes);
    if (it != free_.end()) {
      pinned = it->second;
      free_.erase(it);
    }
  }
  if (!pinned) {
    pinned = pinnedAllocate(staged->bytes);
    std::lock_guard lock(mutex_);
    sizes_[pinned] = staged->bytes;
  }
  try {
    if (copyIn) copyFromGpu(pinned, staged->gpu, staged->bytes, staged->device);
  } catch (...) {
    std::lock_guard lock(mutex_);
    free_.emplace(sizes_.at(pinned), pinned);
    throw;
  }
  staged->host = gpu;
  staged->host.data = pinned;
  staged->host.device = {DTB_DEVICE_HOST, 0};
  return staged;
}

void GpuStaging::finish(const Staged& staged, bool copyBack) {
  const auto giveBack = [&] {
    std::lock_guard lock(mutex_);
    free_.emplace(sizes_.at(staged.host.data), staged.host.data);
  };
  try {
    if (copyBack) copyToGpu(staged.gpu, staged.host.data, staged.bytes, staged.device);
  } catch (...) {
    giveBack();
    throw;
  }
  giveBack();
}

bool stagedThroughHost(const dtb_tensor_t& t, uint32_t backendCapabilities) {
  return t.device.type == DTB_DEVICE_CUDA && t.count > 0 &&
         (backendCapabilities & DTB_BACKEND_CAP_HOST_MEMORY) &&
         !(backendCapabilities & DTB_BACKEND_CAP_CUDA_MEMORY);
}

}  // namespace dtb::core
