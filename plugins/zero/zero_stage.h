// ZeRO's three stages (Rajbhandari et al. 2020, §5), each what it
// partitions, when it reduces and when it gathers:
//   stage 1: optimizer state.      Whole gradients, reduced after backward;
//            whole parameters, gathered after the step.
//   stage 2: + gradients.          Reduced unit by unit during backward;
//            whole parameters, gathered after the step.
//   stage 3: + parameters.         Reduced per layer during backward;
//            gathered before each layer computes.
// Stages 1-2 group parameters into reduce buckets, stage 3 into layers (see
// partition.h). makeStage is the one place that tells the stages apart; the
// strategy (zero_strategy.h) runs whatever it returns.
#pragma once

#include <cstdint>
#include <memory>

#include "gradients.h"
#include "layout.h"
#include "parameters.h"

namespace dtb::strategy::zero {

struct StageSettings {
  int stage = 1;
  uint64_t reduceBucketElements = 0;  // stages 1-2
  uint64_t persistenceThreshold = 0;  // stage 3
  bool prefetch = true;               // stage 3
  GradientSettings gradients;
};

// The stage's layout of units over `params` (whose layers are < layerCount).
Layout stageLayout(const StageSettings& settings, const ParamSet& params, uint32_t layerCount, int rank,
                   int world);

struct Stage {
  std::unique_ptr<Gradients> gradients;
  std::unique_ptr<Parameters> parameters;
};

// `releasing`: the model gives its parameter storage back once copied.
Stage makeStage(const StageSettings& settings, const dtb_host_t* host, const Layout& layout,
                ModelViews& views, bool releasing);

}  // namespace dtb::strategy::zero
