// The tensors of one multi-tensor kernel launch: the fused optimizer's
// (gpu_optimizer.h) updates of many parameters in one kernel instead of one
// kernel per parameter, as PyTorch's fused and foreach optimizers and apex's
// multi_tensor_apply do. ResNet-50 has 161 parameters: launched one by one,
// their updates cost more in launches than in arithmetic.
//
// The table goes to the kernel by value, as an argument, as theirs does: the
// launch copies it, so the host may fill the next one at once and needs no
// GPU memory of its own for it. Plain C++ on the host (packed and tested
// there), read on the GPU.
#pragma once

#include <cstdint>
#include <vector>

#include "cuda/host_device.h"

namespace dtb::core {

// One tensor's update: `count` elements of `param` (f32, or the run's f16 /
// bf16) from `grad` of the same dtype, with `state` as the optimizer's
// (count x its floats; null when it keeps none) and this parameter's weight
// decay (0 for one flagged without it).
struct MultiTensorSlice {
  void* param = nullptr;
  const void* grad = nullptr;
  float* state = nullptr;
  uint64_t count = 0;
  float weightDecay = 0;
};

struct MultiTensorTable {
  // 64 tensors take 2.3 KiB, within the 4 KiB of arguments every CUDA
  // device takes (apex packs 110 addresses a launch for the same reason).
  static constexpr uint32_t kCapacity = 64;

  uint32_t size = 0;
  // end[k]: the elements of tensors 0..k together; tensor k's elements are
  // [begin(k), end[k]) of the launch's.
  uint64_t end[kCapacity] = {};
  void* param[kCapacity] = {};
  const void* grad[kCapacity] = {};
  float* state[kCapacity] = {};
  float weightDecay[kCapacity] = {};

  DTB_HOST_DEVICE uint64_t elements() const { return size == 0 ? 0 : end[size - 1]; }
  DTB_HOST_DEVICE uint64_t begin(uint32_t k) const { return k == 0 ? 0 : end[k - 1]; }
  DTB_HOST_DEVICE uint64_t count(uint32_t k) const { return end[k] - begin(k); }
  // The tensor element `i` of the launch (i < elements()) belongs to: the
  // first whose end is past it (a binary search: six probes at most).
  DTB_HOST_DEVICE uint32_t tensorOf(uint64_t i) const {
    uint32_t low = 0, high = size - 1;
    while (low < high) {
      const uint32_t mid = (low + high) / 2;
      if (end[mid] > i) {
        high = mid;
      } else {
        low = mid + 1;
      }
    }
    return low;
  }
};

// `slices` in order, in tables of at most kCapacity tensors each; slices of
// no elements are left out (no table for none).
std::vector<MultiTensorTable> packMultiTensorTables(const std::vector<MultiTensorSlice>& slices);

}  // namespace dtb::core
