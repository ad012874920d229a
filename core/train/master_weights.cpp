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
  // The optimizer counts applied steps only (training_step.cpp, and
  // settleStep below in fp16): the first applied step is 1.
  if (optimizer_.step() == 1) widenFromLowPrecision(param, master, count, dtype);
  // The slice's gradient in f32, for this call only (optim_update may come
  // from several threads at once, and a buffer kept would stay resident).
  std::vector<float> widened(count);
  widenFromLowPrecision(grad, widened.data(), count, dtype);
  // By the scale the gradients were rounded with: settling the step may
  // have grown the scale since (DeepSpeed's window), as GradScaler unscales
  // before it updates the scale.
  // (The wrapped optimizer's update then clips them: clipFactor().)
  const float unscale = 1.0f / precision_.gradientScale();
  if (unscale != 1.0f) {
    for (float& g : widened) g *= unscale;
  }
  optimizer_.update(master, widened.data(), state + count, count, decay);
  roundToLowPrecision(master, param, count, dtype, 1.0f);
}

void MasterWeightOptimizer::updateManyOnGpu(const std::vector<GpuUpdateSlice>& slices, int device) {
  if (precision_.skipping()) return;
  // As updateLowPrecision: the master from the parameter on the first
  // applied step, the gradients divided by the scale they were rounded with.
  optimizer_.updateMasterManyOnGpu(precision_.dtype(), slices, 1.0f / precision_.gradientScale(), device);
}

bool MasterWeightOptimizer::overflowIn(const dtb_tensor_t* grads, uint32_t count) const {
  // Checked where they are: on a GPU, by kernels, read once.
  return precision_.overflowed() || precision_.nonFiniteIn(grads, count);
}

double MasterWeightOptimizer::squaredNorm(const dtb_tensor_t* grads, uint32_t count) const {
  double sum = 0;
  std::vector<float> widened;
  for (uint32_t t = 0; t < count; ++t) {
    widened.resize(grads[t].count);
    widenFromLowPrecision(static_cast<const uint16_t*>(grads[t].data), widened.data(), grads[t].count,
                          grads[t].dtype);
    for (float g : widened) sum += static_cast<double>(g) * g;
  }
  const double scale = precision_.gradientScale();
  return sum / (scale * scale);
}

double MasterWeightOptimizer::squaredNormOnGpu(const dtb_tensor_t* grads, uint32_t count, int device) const {
  const double scale = precision_.gradientScale();  // the records hold the gradients times it
  return optimizer_.squaredNormOnGpu(grads, count, device) / (scale * scale);
}

bool MasterWeightOptimizer::settleStep(bool anyOverflow) {
  const bool applied = precision_.settleStep(anyOverflow);
  if (applied) optimizer_.beginStep();
  return applied;
}

void MasterWeightOptimizer::update(float*, const float*, float*, size_t, WeightDecay) const {
  throw std::logic_error(std::string("optim_update: this run trains in ") +
                         precisionName(precision_.precision()) + ": its parameters and gradients are " +
                         precisionName(precision_.precision()) + " tensors, not f32");
}

}  // namespace dtb::core
