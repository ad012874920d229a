#include "cuda_check.h"
#include "device_buffer.h"

namespace dtb::nn::cuda {
namespace {

cudaError_t release(Memory kind, void* data) {
  return kind == Memory::kDevice ? cudaFree(data) : cudaFreeHost(data);
}

cudaError_t allocate(Memory kind, void** data, size_t bytes) {
  return kind == Memory::kDevice ? cudaMalloc(data, bytes) : cudaMallocHost(data, bytes);
}

}  // namespace

template <Memory kKind>
GrowingBuffer<kKind>::~GrowingBuffer() {
  if (data_) release(kKind, data_);
}

template <Memory kKind>
void* GrowingBuffer<kKind>::bytes(size_t bytes) {
  if (bytes <= size_ && data_) return data_;
  if (data_) {
    // Work queued on the model's stream may still read the old block (a
    // growth is rare: the first steps, a larger batch).
    check(cudaDeviceSynchronize(), "waiting for the GPU before a buffer grows");
    check(release(kKind, data_), kKind == Memory::kDevice ? "cudaFree" : "cudaFreeHost");
  }
  data_ = nullptr;
  size_ = 0;
  check(allocate(kKind, &data_, bytes > 0 ? bytes : 1), kKind == Memory::kDevice
                                                            ? "cudaMalloc (a layer's buffer)"
                                                            : "cudaMallocHost (a batch's staging buffer)");
  size_ = bytes;
  return data_;
}

template class GrowingBuffer<Memory::kDevice>;
template class GrowingBuffer<Memory::kPinnedHost>;

}  // namespace dtb::nn::cuda
