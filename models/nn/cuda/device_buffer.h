// GPU memory that grows to the largest size asked of it and is freed with
// its owner: each module's output and input gradient, as the oneDNN modules
// keep std::vectors. Growth happens in the first steps only (the largest
// batch stays), so cudaMalloc never runs in the steady state.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dtb::nn::cuda {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  // At least `bytes`, contents undefined after a growth.
  void* bytes(size_t bytes);
  float* floats(uint64_t count) { return static_cast<float*>(bytes(count * sizeof(float))); }
  void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

// Pinned host memory, grown the same way: the staging area of copies to the
// GPU (a pageable source makes cudaMemcpyAsync synchronous).
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer();

  void* bytes(size_t bytes);

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace dtb::nn::cuda
