// GPU tensors over a backend that moves host memory (Gloo, MPI), as
// PyTorch's Gloo process group carries CUDA tensors: copied into pinned host
// memory before the collective and back to the GPU after its wait. A testing
// and small-machine path (several ranks sharing one GPU, which NCCL
// refuses), not a fast one: each collective pays two copies over PCIe and
// the reduction on the CPU. Pinned buffers are pooled, so the steady state
// allocates nothing.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "dtbench/dtbench.h"

namespace dtb::core {

class GpuStaging {
 public:
  // One GPU tensor's stand-in: `host` is what the backend is given.
  struct Staged {
    dtb_tensor_t host{};
    void* gpu = nullptr;
    int device = 0;
    uint64_t bytes = 0;
  };

  GpuStaging() = default;
  GpuStaging(const GpuStaging&) = delete;
  GpuStaging& operator=(const GpuStaging&) = delete;
  ~GpuStaging();

  // A pinned copy of `gpu`'s bytes (uninitialised without `copyIn`: an
  // output the collective overwrites), as a host tensor of the same shape.
  // Throws GpuUnavailable (cuda_memory.h) when the copy cannot be made.
  std::shared_ptr<Staged> stage(const dtb_tensor_t& gpu, bool copyIn = true);
  // After the collective: its result back to the GPU when `copyBack`, the
  // pinned buffer back to the pool. A staged tensor never finished (a
  // request abandoned while it may still run) keeps its buffer to the end.
  void finish(const Staged& staged, bool copyBack);

 private:
  std::mutex mutex_;
  std::multimap<uint64_t, void*> free_;  // by size
  std::map<void*, uint64_t> sizes_;      // every buffer made, freed with the pool
};

// Whether `t` goes through staging on a backend of these capabilities: a GPU
// tensor, a backend that moves host memory and no GPU memory.
bool stagedThroughHost(const dtb_tensor_t& t, uint32_t backendCapabilities);

}  // namespace dtb::core
