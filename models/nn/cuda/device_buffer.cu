#include "cuda_check.h"
#include "device_buffer.h"

namespace dtb::nn::cuda {

DeviceBuffer::~DeviceBuffer() {
  if (data_) cudaFree(data_);
}

void* DeviceBuffer::bytes(size_t bytes) {
  if (bytes <= size_ && data_) return data_;
  // Work queued on the model's stream may still read the old block (a
  // growth is rare: the first steps, a larger batch).
  if (data_) check(cudaDeviceSynchronize(), "waiting for the GPU before a buffer grows");
  if (data_) check(cudaFree(data_), "cudaFree");
  data_ = nullptr;
  size_ = 0;
  check(cudaMalloc(&data_, bytes > 0 ? bytes : 1), "cudaMalloc (a layer's buffer)");
  size_ = bytes;
  return data_;
}

PinnedBuffer::~PinnedBuffer() {
  if (data_) cudaFreeHost(data_);
}

void* PinnedBuffer::bytes(size_t bytes) {
  if (bytes <= size_ && data_) return data_;
  if (data_) check(cudaFreeHost(data_), "cudaFreeHost");
  data_ = nullptr;
  size_ = 0;
  check(cudaMallocHost(&data_, bytes > 0 ? bytes : 1), "cudaMallocHost (the batch's staging buffer)");
  size_ = bytes;
  return data_;
}

}  // namespace dtb::nn::cuda
