// DeepSpeed's ZeRO (Rajbhandari et al. 2020; deepspeed/runtime/zero), on
// the host or a GPU, in fp32, or (on the host) on the bf16 / fp16
// parameters and gradients of a mixed-precision run, whose f32 master copy
// is the first of the optimizer state's floats, sharded with it. Every rank keeps only its slice of the
// optimizer state (stage 1), of the reduced gradients (stage 2) and of the parameters (stage 3): zero_stage.h
// says what each stage does, partition.h how the parameters are laid out in units. This class is what the
// stages share: the strategy hooks, the optimizer over this rank's slices, the memory report.
#pragma once

#include <cstdint>
#include <vector>

#include "dtbench/host_buffer.hpp"
#include "dtbench/param_set.hpp"
#include "layout.h"
#include "zero_stage.h"

namespace dtb::strategy::zero {

class ZeroStrategy {
 public:
  ZeroStrategy(const dtb_host_t* host, const dtb_strategy_setup_t& setup);
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
  const dtb_host_t* host_;
  ParamSet params_;
  GradArrivals arrived_;
  StageSettings settings_;
  Layout layout_;
  ModelViews views_;
  uint32_t stateFloats_;
  Stage stage_;
  std::vector<HostBuffer<float>> optimizerState_;  // per unit: the state of this rank's slice
};

}  // namespace dtb::strategy::zero
