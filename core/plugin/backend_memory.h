// Which memory a backend moves, from its capability bits. The loader refuses
// a backend that names neither (descriptor.cpp), so every loaded backend
// moves host memory, GPU memory, or both.
#pragma once

#include "dtbench/backend.h"

namespace dtb::core {

// A backend that moves GPU memory and no host memory (nccl): its tensors,
// and the figures the host exchanges over it, must be on the GPU.
inline bool movesGpuMemoryOnly(const dtb_backend_plugin_v1_t& backend) {
  return (backend.capabilities & DTB_BACKEND_CAP_CUDA_MEMORY) &&
         !(backend.capabilities & DTB_BACKEND_CAP_HOST_MEMORY);
}

}  // namespace dtb::core
