// Stage 3's parameter coordinator (DeepSpeed's
// PartitionedParameterCoordinator): before a layer computes, its unit's
// parameters are all-gathered from every rank's slice; with prefetch the
// next layer's gather — along the order the first forward ran the layers,
// reversed in backward — goes out at once to overlap this layer's compute;
// every other gathered unit is released, so at most two are resident.
// Persistent units (small layers) are never gathered or released: the
// stages keep them whole.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "buffer_pool.h"
#include "dtbench/strategy.h"
#include "dtbench/tensor_ops.hpp"
#include "layout.h"

namespace dtb::strategy::zero {

class ParameterCoordinator {
 public:
  // What the coordinator needs of whoever holds the parameters, per unit.
  struct Holder {
    std::function<bool(size_t unit)> sharded;            // partitioned, not persistent
    std::function<void*(size_t unit)> ownedSlice;        // this rank's slice of its parameters
    std::function<void(size_t unit, void* base)> point;  // the model's views at base (nullptr: not resident)
  };

  ParameterCoordinator(const dtb_host_t* host, const Layout& layout, bool prefetch, Holder holder);
  ~ParameterCoordinator();  // waits for any gather still in flight
  ParameterCoordinator(const ParameterCoordinator&) = delete;
  ParameterCoordinator& operator=(const ParameterCoordinator&) = delete;

  // Before `layer` computes in `pass`: its unit gathered (waited for), the
  // next unit's gather issued, every other unit released.
  void beforeLayer(uint32_t layer, dtb_pass_t pass);
  // Releases every gathered unit (between passes, after evaluation).
  void releaseAll();
  // The first step is over: the forward order is known.
  void stopRecording() { recording_ = false; }
  uint64_t peakBytes() const { return gathered_.peakBytes(); }

 private:
  static constexpr size_t kNone = SIZE_MAX;
  // The unit of the next layer with parameters after `layer` along the
  // recorded order (before it in backward); kNone when there is none.
  size_t nextUnit(uint32_t layer, dtb_pass_t pass) const;
  void startGather(size_t u);
  void finishGather(size_t u);
  void release(size_t keep1, size_t keep2);

  const dtb_host_t* host_;
  const Layout& layout_;
  bool prefetch_;
  Holder holder_;
  BufferPool gathered_;
  std::vector<void*> resident_;          // per unit: its gathered parameters, or null
  std::vector<dtb_request_t> inFlight_;  // per unit: its gather, until waited for
  std::vector<uint32_t> forwardOrder_;   // the layers as the first forward ran them
  bool recording_ = true;
};

}  // namespace dtb::strategy::zero
