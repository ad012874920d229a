// DeepSpeed's ZeRO (Rajbhandari et al. 2020; deepspeed/runtime/zero), in
// fp32 on the host. Every rank keeps only its slice of the optimizer state
// (stage 1), of the reduced gradients (stage 2) and of the parameters
// (stage 3) — see partition.h for the layout.
//   Stage 1: after backward each reduce bucket is reduce-scattered; each
//            rank updates its slice; the parameters are all-gathered.
//   Stage 2: buckets are reduce-scattered during backward, as soon as their
//            gradients are written (into a recycled staging buffer: the full
//            gradients never all exist at once).
//   Stage 3: a layer's parameters are all-gathered before it computes, in
//            forward and again in backward (the next layer's gather is issued
//            ahead, along the order recorded in the first step), and released
//            after use; gradients are reduce-scattered per layer.
// `reduce_scatter = false` all-reduces each bucket and keeps the slice, as
// DeepSpeed's stage 1/2 do by default.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "buffer_pool.h"
#include "dtbench/host_buffer.hpp"
#include "dtbench/param_set.hpp"
#include "parameter_coordinator.h"
#include "partition.h"

namespace dtb::strategy::zero {

class ZeroStrategy {
 public:
  ZeroStrategy(const dtb_host_t* host, const dtb_strategy_setup_t& setup);
  ~ZeroStrategy();
  ZeroStrategy(const ZeroStrategy&) = delete;
  ZeroStrategy& operator=(const ZeroStrategy&) = delete;

  const dtb_host_t* host() const { return host_; }
  void beforeForward(const dtb_step_info_t& step);
  void layerBegin(uint32_t layer, dtb_pass_t pass);
  void gradReady(dtb_param_t* param);
  void finishBackward();
  void step();
  void memoryReport(dtb_memory_report_t* out) const;

 private:
  struct UnitState {
    HostBuffer<float> full;         // gathered parameters (stages 1-2, persistent units)
    HostBuffer<float> ownedParams;  // stage 3: this rank's slice of the parameters
    HostBuffer<float> wholeGrads;   // stage 1: the unit's whole gradients
    HostBuffer<float> gradSlice;    // the reduced slice, where it is not a view into wholeGrads
    HostBuffer<float> state;        // optimizer state of the slice
    float* gradShard = nullptr;     // this rank's slice of the reduced gradients
    float* staging = nullptr;       // where this backward's gradients are written
    float* reduceOut = nullptr;     // reduce-scatter output
    dtb_request_t reduce = nullptr, gather = nullptr;  // gather: the step's all-gather of a replicated unit
    uint32_t pending = 0;                              // gradients still to come this backward
    bool launched = false;
  };

  float* ownedSlice(size_t u);  // this rank's parameter slice
  bool sharded(size_t u) const { return stage_ == 3 && !units_[u].persistent; }
  void pointParams(size_t u, float* base);
  void pointGrads(size_t u, float* base);
  void stage(size_t u);  // gives a unit a staging buffer for its gradients
  void launchReady();
  void launchReduce(size_t u);
  void completeReduce(size_t u);
  void wait(dtb_request_t& request, const char* what);

  const dtb_host_t* host_;
  ParamSet params_;
  GradArrivals arrived_;
  // The model's own storage, pointed back at when we no longer hold a part;
  // NULL once given back to the system (releaseModelStorage).
  std::vector<void*> modelValues_, modelGrads_;
  bool releasing_ = false;  // the model gives its storage back (release_param)
  uint32_t accumulation_;
  int stage_, rank_, world_;
  bool trueReduceScatter_;
  uint32_t stateFloats_;
  std::vector<Unit> units_;
  std::vector<UnitState> state_;
  std::vector<uint32_t> unitOf_;                   // per parameter
  std::vector<std::vector<uint32_t>> layerUnits_;  // units touching each layer
  std::vector<size_t> launchOrder_;                // units in the order backward completes them
  size_t nextLaunch_ = 0;                          // launchOrder_ position of the next reduction to issue
  size_t completed_ = 0;                           // ... and of the next to wait for
  std::unique_ptr<BufferPool> staging_, scratch_;
  std::unique_ptr<ParameterCoordinator> coordinator_;  // stage 3
  uint32_t microStep_ = 0;
};

}  // namespace dtb::strategy::zero
