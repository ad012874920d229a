// Where a ZeRO stage keeps the parameters between steps.
//   Parameters (stages 1-2): every rank holds every unit whole; after the
//     optimizer updated this rank's slice, the slices are all-gathered in
//     place (DeepSpeed's all_gather_into_tensor from the slice's own view).
//   PartitionedParameters (stage 3): a unit is held as this rank's slice
//     only, and gathered before its layer computes (parameter_coordinator.h);
//     persistent units (small layers) stay whole, as in stages 1-2.
// Both take the model's initial values unit by unit, giving the model's
// own arrays back to the system as they go where the model allows it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "dtbench/tensor_ops.hpp"
#include "dtbench/typed_buffer.hpp"
#include "layout.h"
#include "parameter_coordinator.h"

namespace dtb::strategy::zero {

class Parameters {
 public:
  // `releasing`: the model's value arrays go back to the system once
  // copied. partitioned[u]: unit u is held as this rank's slice (none: all
  // units whole).
  Parameters(const dtb_host_t* host, const Layout& layout, ModelViews& views, bool releasing,
             std::vector<bool> partitioned = {});
  virtual ~Parameters();
  Parameters(const Parameters&) = delete;
  Parameters& operator=(const Parameters&) = delete;

  bool partitioned(size_t u) const { return !partitioned_.empty() && partitioned_[u]; }
  // This rank's slice of unit u's parameters: what its optimizer updates.
  void* ownedSlice(size_t u);
  virtual void beforeForward() {}
  virtual void beforeLayer(uint32_t /*layer*/, dtb_pass_t /*pass*/) {}
  virtual void afterBackward() {}
  // After the optimizer step: units held whole take every rank's updated
  // slice. Throws the first failure, after waiting for every gather.
  void gatherUpdated();
  // Parameter elements held, and buffer bytes at their peak (memory report).
  uint64_t heldElements() const;
  virtual uint64_t bufferBytes() const { return 0; }

 protected:
  const dtb_host_t* host_;
  const Layout& layout_;
  ModelViews& views_;

 private:
  void takeSlice(size_t u);
  void takeWhole(size_t u);
  // The model's own array of parameter i, as a tensor on the parameters' device.
  dtb_tensor_t modelValue(uint32_t i);

  bool releasing_;
  std::vector<bool> partitioned_;
  std::vector<TypedBuffer> whole_;  // per unit held whole
  std::vector<TypedBuffer> owned_;  // per partitioned unit: this rank's slice
  TensorOps ops_;
};

class PartitionedParameters final : public Parameters {
 public:
  PartitionedParameters(const dtb_host_t* host, const Layout& layout, ModelViews& views, bool releasing,
                        bool prefetch);
  ~PartitionedParameters() override;
  void beforeForward() override { coordinator_->releaseAll(); }  // left over from evaluation
  void beforeLayer(uint32_t layer, dtb_pass_t pass) override { coordinator_->beforeLayer(layer, pass); }
  void afterBackward() override;
  uint64_t bufferBytes() const override { return coordinator_->peakBytes(); }

 private:
  std::unique_ptr<ParameterCoordinator> coordinator_;
};

}  // namespace dtb::strategy::zero
