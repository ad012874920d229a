#include "cuda_check.h"
#include "device_buffer.h"

namespace dtb::nn::cuda {

template <Memory kKind>
GrowingBuffer<kKind>::~GrowingBuffer() {
  release();
}

template <Memory kKind>
void GrowingBuffer<kKind>::release() {
  if (data_ == nullptr) return;
  if constexpr (kKind == Memory::kDevice) {
    memory_->release(data_);
  } else {
    cudaFreeHost(data_);
  }
  data_ = nullptr;
  size_ = 0;
}

template <Memory kKind>
void* GrowingBuffer<kKind>::bytes(size_t bytes) {
  if (bytes <= size_ && data_) return data_;
  if (data_) {
    // Work queued on the model's stream may still read the old block (a
    // growth is rare: the first steps, a larger batch).
    check(cudaDeviceSynchronize(), "waiting for the GPU before a buffer grows");
    release();
  }
  if constexpr (kKind == Memory::kDevice) {
    if (memory_ == nullptr)
      throw Error(DTB_STATUS_INTERNAL, "a layer's GPU buffer was made without its memory");
    data_ = memory_->allocate(bytes, category_, "a layer's buffer");
  } else {
    check(cudaMallocHost(&data_, bytes > 0 ? bytes : 1), "cudaMallocHost (a batch's staging buffer)");
  }
  size_ = bytes;
  return data_;
}

template class GrowingBuffer<Memory::kDevice>;
template class GrowingBuffer<Memory::kPinnedHost>;

}  // namespace dtb::nn::cuda
