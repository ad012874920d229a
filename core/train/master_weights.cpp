#include "train/master_weights.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace dtb::core {

void MasterWeightOptimizer::updateLowPrecision(uint16_t* param, const uint16_t* grad, float* state,
                                               size_t count, WeightDecay decay) {
  if (precision_.skipping()) return;
  const dtb_dtype_t dtype = precision_.dtype();
  float* master = state;
  // beginStep() counts applied steps only (training_step.cpp): the first is 1.
  if (optimizer_.step() == 1) widenFromLowPrecision(param, master, count, dtype);
  // optim_update may be called from several threads at once: a buffer each.
  thread_local std::vector<float> widened;
  widened.resize(count);
  widenFromLowPrecision(grad, widened.data(), count, dtype);
  const float unscale = 1.0f / precision_.lossScale();
  if (unscale != 1.0f) {
    for (float& g : widened) g *= unscale;
  }
  optimizer_.update(master, widened.data(), state + count, count, decay);
  roundToLowPrecision(master, param, count, dtype, 1.0f);
}

void MasterWeightOptimizer::update(float*, const float*, float*, size_t, WeightDecay) const {
  throw std::logic_error(std::string("optim_update: this run trains in ") +
                         precisionName(precision_.precision()) + ": its parameters and gradients are " +
                         precisionName(precision_.precision()) + " tensors, not f32");
}

void MasterWeightOptimizer::updateOnGpu(float*, const float*, float*, size_t, WeightDecay, int) {
  throw std::logic_error("optim_update: mixed precision runs on the CPU only so far");
}

}  // namespace dtb::core
