// typed_buffer.hpp — a HostBuffer whose element type is known at run time:
// a flat array of `count` elements of a dtype (f32, or the bf16 / f16 of a
// mixed-precision run), for a strategy whose buffers hold what the
// parameters are (ParamSet::dtype()). Optional C++ helper; header-only.
//
//   dtb::TypedBuffer unit(host, elements, params.dtype(), DTB_MEM_GRADS);
//   dtb_tensor_t mine = unit.tensor(rank * shard, shard);  // a slice of it
#ifndef DTBENCH_TYPED_BUFFER_HPP
#define DTBENCH_TYPED_BUFFER_HPP

#include <cstddef>
#include <cstdint>

#include "dtbench/host_buffer.hpp"
#include "dtbench/tensor_ops.hpp"

namespace dtb {

class TypedBuffer {
 public:
  TypedBuffer() = default;
  // `count` zeroed elements of `dtype`, counted under `category`, on `device`.
  TypedBuffer(const dtb_host_t* host, uint64_t count, dtb_dtype_t dtype, dtb_mem_category_t category,
              dtb_device_t device = {DTB_DEVICE_HOST, 0})
      : bytes_(host, count * dtypeSize(dtype), category, device), count_(bytes_ ? count : 0), dtype_(dtype) {}

  void* data() const noexcept { return bytes_.data(); }
  // Element i's address.
  void* at(uint64_t i) const noexcept { return elementAt(bytes_.data(), i, dtype_); }
  uint64_t size() const noexcept { return count_; }
  uint64_t bytes() const noexcept { return bytes_.bytes(); }
  dtb_dtype_t dtype() const noexcept { return dtype_; }
  const dtb_device_t& device() const noexcept { return bytes_.device(); }
  explicit operator bool() const noexcept { return static_cast<bool>(bytes_); }

  // The whole buffer, or `count` elements of it from `offset`, as a flat tensor.
  dtb_tensor_t tensor() const noexcept { return flatTensor(data(), count_, device(), dtype_); }
  dtb_tensor_t tensor(uint64_t offset, uint64_t count) const noexcept {
    return flatTensor(at(offset), count, device(), dtype_);
  }

 private:
  HostBuffer<std::byte> bytes_;
  uint64_t count_ = 0;
  dtb_dtype_t dtype_ = DTB_DTYPE_F32;
};

}  // namespace dtb

#endif  // DTBENCH_TYPED_BUFFER_HPP
