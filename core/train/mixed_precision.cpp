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
    if (p.layer >= byLayer_.size()) byLayer_.resize(p.layer + 1);
    byLayer_[p.layer].push_back(i);
  }
  if (precision == Precision::kFp16) scaler_.emplace(scaler);
  gradientScale_ = lossScale();
  valuesFromModel();
}

bool MixedPrecision::release(const dtb_param_t& record, dtb_param_part_t part) {
  const uint32_t i = record.index;
  if (i >= slots_.size() || &slots_[i].record != &record) return false;
  Slot& s = slots_[i];
  // (A record the strategy already points at its own buffer keeps that.)
  auto drop = [](std::vector<uint16_t>& storage, dtb_tensor_t& tensor) {
    if (tensor.data == storage.data()) tensor.data = nullptr;
    std::vector<uint16_t>().swap(storage);
  };
  if (part == DTB_PARAM_PART_VALUE)
    drop(s.value, s.record.value);
  else
    drop(s.grad, s.record.grad);
  return true;
}

void MixedPrecision::valuesFromModel() {
  for (uint32_t i = 0; i < slots_.size(); ++i) {
    dtb_param_t& p = *model_[i];
    // The record's data may have been re-pointed (ZeRO's gathered buffers):
    // it is what the strategy reads. Released and not pointed anywhere,
    // the strategy holds the value in its own storage.
    auto* low = static_cast<uint16_t*>(slots_[i].record.value.data);
    if (low == nullptr) continue;
    auto* f32 = static_cast<float*>(p.value.data);
    roundToLowPrecision(f32, low, p.value.count, dtype_, 1.0f);
    widenFromLowPrecision(low, f32, p.value.count, dtype_);
  }
}

void MixedPrecision::widen(uint32_t index) {
  dtb_param_t& p = *model_[index];
  const auto* low = static_cast<const uint16_t*>(slots_[index].record.value.data);
  if (low == nullptr) {
    throw std::runtime_error(std::string("mixed precision: the strategy released parameter '") +
                             (p.name ? p.name : "?") +
                             "' and did not point it at its value before the forward");
  }
  widenFromLowPrecision(low, static_cast<float*>(p.value.data), p.value.count, dtype_);
}

void MixedPrecision::valuesToModel() {
  for (uint32_t i = 0; i < slots_.size(); ++i) widen(i);
}

void MixedPrecision::layerValuesToModel(uint32_t layer) {
  if (layer >= byLayer_.size()) return;  // a layer without parameters
  for (uint32_t i : byLayer_[layer]) widen(i);
}

void MixedPrecision::beginBackward() {
  for (Slot& s : slots_) s.arrived = false;
  overflowed_ = false;
  gradientScale_ = lossScale();
}

void MixedPrecision::roundGradient(uint32_t index) {
  const dtb_param_t& p = *model_[index];
  Slot& s = slots_[index];
  if (s.record.grad.data == nullptr) {
    throw std::runtime_error(std::string("mixed precision: the strategy released the gradient of '") +
                             (p.name ? p.name : "?") +
                             "' and did not point it anywhere before backward reached it");
  }
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
    // (A released gradient the strategy did not point anywhere is one it
    // did not expect: it says so in its finish_backward.)
    if (!slots_[i].arrived && slots_[i].record.grad.data) roundGradient(i);
  }
}

bool MixedPrecision::settleStep(bool anyOverflow) {
  skipping_ = scaler_ ? !scaler_->update(anyOverflow) : false;
  settled_ = true;
  return !skipping_;
}

}  // namespace dtb::core
