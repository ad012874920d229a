// host_buffer.hpp — memory from the host's allocator (host->alloc), owned:
// freed when the buffer goes, counted under its category in the run's memory
// figures while it lives. Optional C++ helper; header-only.
//
//   dtb::HostBuffer<float> state(host, count, DTB_MEM_OPTIMIZER);  // zeroed
//   host->optim_update(host->ctx, &value, &grad, state.data(), index);
#ifndef DTBENCH_HOST_BUFFER_HPP
#define DTBENCH_HOST_BUFFER_HPP

#include <cstdint>
#include <type_traits>
#include <utility>

#include "dtbench/plugin.hpp"

namespace dtb {

template <typename T>
class HostBuffer {
 public:
  HostBuffer() = default;
  // `count` zeroed elements (none: data() is null), counted under
  // `category`, on `device` (GPU memory: for the host's services only, such
  // as optim_update's state; never dereference it here).
  HostBuffer(const dtb_host_t* host, uint64_t count, dtb_mem_category_t category,
             dtb_device_t device = {DTB_DEVICE_HOST, 0})
      : host_(host),
        data_(hostAllocZeroed<T>(host, count, category, device)),
        count_(data_ ? count : 0),
        device_(device) {}
  ~HostBuffer() { reset(); }
  HostBuffer(HostBuffer&& other) noexcept
      : host_(other.host_),
        data_(std::exchange(other.data_, nullptr)),
        count_(std::exchange(other.count_, 0)),
        device_(other.device_) {}
  HostBuffer& operator=(HostBuffer&& other) noexcept {
    if (this != &other) {
      reset();
      host_ = other.host_;
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
      device_ = other.device_;
    }
    return *this;
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  // Gives the memory back now.
  void reset() noexcept {
    if (data_ != nullptr) host_->free(host_->ctx, data_);
    data_ = nullptr;
    count_ = 0;
  }

  T* data() const noexcept { return data_; }
  const dtb_device_t& device() const noexcept { return device_; }
  uint64_t size() const noexcept { return count_; }
  uint64_t bytes() const noexcept { return count_ * sizeof(T); }
  bool empty() const noexcept { return count_ == 0; }
  explicit operator bool() const noexcept { return data_ != nullptr; }
  T& operator[](uint64_t i) const noexcept { return data_[i]; }
  T* begin() const noexcept { return data_; }
  T* end() const noexcept { return data_ + count_; }

  // The whole buffer as a flat tensor of `dtype` (f32 for float by default)
  // on the buffer's device.
  dtb_tensor_t tensor(dtb_dtype_t dtype) const noexcept {
    dtb_tensor_t t = hostTensor(data_, count_, dtype);
    t.device = device_;
    return t;
  }
  dtb_tensor_t tensor() const noexcept requires std::is_same_v<T, float> { return tensor(DTB_DTYPE_F32); }

 private:
  const dtb_host_t* host_ = nullptr;
  T* data_ = nullptr;
  uint64_t count_ = 0;
  dtb_device_t device_{DTB_DEVICE_HOST, 0};
};

}  // namespace dtb

#endif  // DTBENCH_HOST_BUFFER_HPP
