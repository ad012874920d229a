// Where everything ZeRO holds lies: the units (partition.h), which unit each
// parameter and each layer falls in, the order backward completes the units,
// and the model's own views (dtb_param_t.value / .grad), which point into
// our flat units while we hold them and back at the model's arrays
// otherwise (null once given back to the system).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "dtbench/param_set.hpp"
#include "dtbench/tensor_ops.hpp"
#include "partition.h"

namespace dtb::strategy::zero {

struct Layout {
  int rank = 0, world = 1;
  dtb_device_t device{DTB_DEVICE_HOST, 0};  // where the parameters, and all we hold of them, live
  dtb_dtype_t dtype = DTB_DTYPE_F32;        // what they are: f32, or bf16 / f16 in mixed precision
  std::vector<Unit> units;
  std::vector<uint32_t> unitOf;                   // per parameter
  std::vector<std::vector<uint32_t>> layerUnits;  // the units touching each layer
  std::vector<size_t> backwardOrder;              // units in the order backward completes them
  uint64_t maxPadded = 0, maxShard = 0;

  // `units` in forward order: backward completes them in reverse.
  // Bucket units (stages 1-2) are already in backward order.
  enum class Order { kBackward, kForward };
  Layout(const ParamSet& params, uint32_t layerCount, std::vector<Unit> units, Order order, int rank,
         int world);
  size_t size() const { return units.size(); }
  const Unit& operator[](size_t u) const { return units[u]; }
  // `count` elements at `data` as a flat tensor of the parameters' dtype
  // and device, and element i of such an array.
  dtb_tensor_t flat(void* data, uint64_t count) const { return flatTensor(data, count, device, dtype); }
  void* at(void* base, uint64_t i) const { return elementAt(base, i, dtype); }
};

class ModelViews {
 public:
  ModelViews(const ParamSet& params, const Layout& layout);

  // Unit u's parameter values (gradients) seen at `base` in our flat
  // layout; nullptr: at the model's own arrays.
  void pointValues(size_t u, void* base);
  void pointGrads(size_t u, void* base);
  dtb_param_t& param(uint32_t i) const { return params_[i]; }
  // The model's own arrays (null once released).
  void* modelValue(uint32_t i) const { return values_[i]; }
  void* modelGrad(uint32_t i) const { return grads_[i]; }
  void forgetModelGrads();
  void forgetModelValue(uint32_t i) { values_[i] = nullptr; }

 private:
  const ParamSet& params_;
  const Layout& layout_;
  std::vector<void*> values_, grads_;
};

}  // namespace dtb::strategy::zero
