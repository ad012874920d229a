#include "train/mixed_precision.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace dtb::core {

MixedPrecision::MixedPrecision(Precision precision, dtb_param_t* const* modelParams, uint32_t count,
                               LossScalerConfig scaler)
    : precision_(precision), dtype_(precisionDtype(precision)), model_(modelParams, modelParams + count) {
  if (precision == Precision::kFp32) throw std::invalid_argument("MixedPrecision: precision is fp32");
  slots_.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    const dtb_param_t& p = *model_[i];
    for (const dtb_tensor_t* t : {&p.value, &p.grad}) {
      if (t->dtype != DTB_DTYPE_F32 || t->device.type != DTB_DEVICE_HOST) {
        throw std::invalid_argument(std::string("precision = \"") + precisionName(precision) +
                                    "\": parameter '" + (p.name ? p.name : "?") +
                                    "' is not an f32 host tensor; mixed precision converts those only "
                                    "(on the CPU)");
      }
    }
    Slot& s = slots_[i];
    s.value.resize(p.value.count);
    s.grad.resize(p.grad.count);
    s.record = p;
    s.record.struct_size = sizeof(dtb_param_t);
    s.record.value.dtype = dtype_;
    s.record.value.data = s.value.data();
    s.record.grad.dtype = dtype_;
    s.record.grad.data = s.grad.data();
    pointers_.push_back(&s.record);
  }
  if (precision == Precision::kFp16) scaler_.emplace(scaler);
  gradientScale_ = lossScale();
  valuesFromModel();
}

void MixedPrecision::valuesFromModel() {
  for (uint32_t i = 0; i < slots_.size(); ++i) {
    dtb_param_t& p = *model_[i];
    // The record's data may have been re-pointed (ZeRO's gathered buffers):
    // it is what the strategy reads.
    auto* low = static_cast<uint16_t*>(slots_[i].record.value.data);
    auto* f32 = static_cast<float*>(p.value.data);
    roundToLowPrecision(f32, low, p.value.count, dtype_, 1.0f);
    widenFromLowPrecision(low, f32, p.value.count, dtype_);
  }
}

void MixedPrecision::valuesToModel() {
  for (uint32_t i = 0; i < slots_.size(); ++i) {
    dtb_param_t& p = *model_[i];
    widenFromLowPrecision(static_cast<const uint16_t*>(slots_[i].record.value.data),
                          static_cast<float*>(p.value.data), p.value.count, dtype_);
  }
}

void MixedPrecision::beginBackward() {
  for (Slot& s : slots_) s.arrived = false;
  overflowed_ = false;
  gradientScale_ = lossScale();
}

void MixedPrecision::roundGradient(uint32_t index) {
  const dtb_param_t& p = *model_[index];
  Slot& s = slots_[index];
  const bool finite =
      roundToLowPrecision(static_cast<const float*>(p.grad.data), static_cast<uint16_t*>(s.record.grad.data),
                          p.grad.count, dtype_, gradientScale_);
  if (poison_ && p.grad.count > 0) {
    const float inf = std::numeric_limits<float>::infinity();
    roundToLowPrecision(&inf, static_cast<uint16_t*>(s.record.grad.data), 1, dtype_, 1.0f);
    poison_ = false;
    overflowed_ = true;
  }
  overflowed_ |= !finite;
  s.arrived = true;
}

dtb_param_t* MixedPrecision::gradientReady(const dtb_param_t& modelParam) {
  const uint32_t i = modelParam.index;
  if (i >= model_.size() || model_[i] != &modelParam) {
    throw std::invalid_argument(std::string("mixed precision: '") +
                                (modelParam.name ? modelParam.name : "?") +
                                "' is not a parameter of this model");
  }
  roundGradient(i);
  return &slots_[i].record;
}

void MixedPrecision::finishBackward() {
  for (uint32_t i = 0; i < slots_.size(); ++i) {
    if (!slots_[i].arrived) roundGradient(i);
  }
}

bool MixedPrecision::settleStep(bool anyOverflow) {
  skipping_ = scaler_ ? !scaler_->update(anyOverflow) : false;
  settled_ = true;
  return !skipping_;
}

}  // namespace dtb::core
