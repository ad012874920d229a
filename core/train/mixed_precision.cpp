#include "train/mixed_precision.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace dtb::core {

namespace {

// The parameter's tensors as mixed precision takes them: f32, on the host or
// on the GPU of the first parameter (`device`).
void requireConvertible(const dtb_param_t& p, dtb_device_t device, Precision precision) {
  for (const dtb_tensor_t* t : {&p.value, &p.grad}) {
    if (t->dtype != DTB_DTYPE_F32 || t->device.type != device.type || t->device.index != device.index ||
        (device.type != DTB_DEVICE_HOST && device.type != DTB_DEVICE_CUDA)) {
      throw std::invalid_argument(std::string("precision = \"") + precisionName(precision) +
                                  "\": parameter '" + (p.name ? p.name : "?") +
                                  "' is not an f32 tensor on the device of the model's first parameter; "
                                  "mixed precision converts f32 tensors on the host or on one GPU");
    }
  }
}

}  // namespace

MixedPrecision::MixedPrecision(Precision precision, dtb_param_t* const* modelParams, uint32_t count,
                               LossScalerConfig scaler, std::unique_ptr<LowPrecisionStore> store)
    : precision_(precision),
      dtype_(precisionDtype(precision)),
      model_(modelParams, modelParams + count),
      store_(std::move(store)) {
  if (precision == Precision::kFp32) throw std::invalid_argument("MixedPrecision: precision is fp32");
  const dtb_device_t device = count > 0 ? model_[0]->value.device : dtb_device_t{DTB_DEVICE_HOST, 0};
  if (!store_) store_ = makeLowPrecisionStore(device);
  slots_.resize(count);
  try {
    for (uint32_t i = 0; i < count; ++i) {
      const dtb_param_t& p = *model_[i];
      requireConvertible(p, device, precision);
      Slot& s = slots_[i];
      s.value = store_->allocate(p.value.count);
      s.grad = store_->allocate(p.grad.count);
      s.record = p;
      s.record.struct_size = sizeof(dtb_param_t);
      s.record.value.dtype = dtype_;
      s.record.value.data = s.value;
      s.record.grad.dtype = dtype_;
      s.record.grad.data = s.grad;
      pointers_.push_back(&s.record);
      if (p.layer >= byLayer_.size()) byLayer_.resize(p.layer + 1);
      byLayer_[p.layer].push_back(i);
    }
  } catch (...) {
    for (Slot& s : slots_) {
      if (s.value) store_->release(s.value);
      if (s.grad) store_->release(s.grad);
    }
    throw;
  }
  if (precision == Precision::kFp16) scaler_.emplace(scaler);
  store_->watchOverflow(scaler_.has_value());
  gradientScale_ = lossScale();
  valuesFromModel();
}

MixedPrecision::~MixedPrecision() {
  try {
    store_->settle();  // nothing queued may still write what is freed
  } catch (const std::exception&) {
    // A GPU in error: its work will never run, and freeing is all that is left.
  }
  for (Slot& s : slots_) {
    if (s.value) store_->release(s.value);
    if (s.grad) store_->release(s.grad);
  }
}

bool MixedPrecision::release(const dtb_param_t& record, dtb_param_part_t part) {
  const uint32_t i = record.index;
  if (i >= slots_.size() || &slots_[i].record != &record) return false;
  Slot& s = slots_[i];
  // (A record the strategy already points at its own buffer keeps that.)
  auto drop = [this](void*& storage, dtb_tensor_t& tensor) {
    if (storage == nullptr) return;
    if (tensor.data == storage) tensor.data = nullptr;
    store_->settle();  // nothing queued may still write it
    store_->release(storage);
    storage = nullptr;
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
    store_->round(f32, low, p.value.count, dtype_, 1.0f);
    store_->widen(low, f32, p.value.count, dtype_);
  }
  // (Values cannot overflow bf16; in fp16 an inf would be the model's, seen
  // in its first step's gradients: the check is for gradients.)
  if (store_->watching()) store_->clearOverflow();
  store_->settle();
}

void MixedPrecision::widen(uint32_t index) {
  dtb_param_t& p = *model_[index];
  const auto* low = static_cast<const uint16_t*>(slots_[index].record.value.data);
  if (low == nullptr) {
    throw std::runtime_error(std::string("mixed precision: the strategy released parameter '") +
                             (p.name ? p.name : "?") +
                             "' and did not point it at its value before the forward");
  }
  store_->widen(low, static_cast<float*>(p.value.data), p.value.count, dtype_);
}

void MixedPrecision::valuesToModel() {
  for (uint32_t i = 0; i < slots_.size(); ++i) widen(i);
  store_->settle();
}

void MixedPrecision::layerValuesToModel(uint32_t layer, bool settle) {
  if (layer >= byLayer_.size()) return;  // a layer without parameters
  for (uint32_t i : byLayer_[layer]) widen(i);
  if (settle) store_->settle();  // the layer's kernels, on the model's stream, read them next
}

void MixedPrecision::beginBackward() {
  for (Slot& s : slots_) s.arrived = false;
  overflowed_ = false;
  if (store_->watching()) store_->clearOverflow();
  gradientScale_ = lossScale();
}

bool MixedPrecision::overflowed() {
  overflowed_ = overflowed_ || store_->overflowNoted();
  return overflowed_;
}

bool MixedPrecision::nonFiniteIn(const dtb_tensor_t* tensors, uint32_t count) {
  // The store's flag is clear (overflowed() said so): these are noted into
  // it, read, and it is cleared again, so a second question starts clean.
  for (uint32_t t = 0; t < count; ++t) {
    store_->noteNonFinite(static_cast<const uint16_t*>(tensors[t].data), tensors[t].count, dtype_);
  }
  const bool found = store_->overflowNoted();
  store_->clearOverflow();
  return found;
}

void MixedPrecision::roundGradient(uint32_t index) {
  const dtb_param_t& p = *model_[index];
  Slot& s = slots_[index];
  if (s.record.grad.data == nullptr) {
    throw std::runtime_error(std::string("mixed precision: the strategy released the gradient of '") +
                             (p.name ? p.name : "?") +
                             "' and did not point it anywhere before backward reached it");
  }
  store_->round(static_cast<const float*>(p.grad.data), static_cast<uint16_t*>(s.record.grad.data),
                p.grad.count, dtype_, gradientScale_);
  if (poison_ && p.grad.count > 0) {
    const float inf = std::numeric_limits<float>::infinity();
    uint16_t bits = 0;
    roundToLowPrecision(&inf, &bits, 1, dtype_, 1.0f);
    store_->setFirst(static_cast<uint16_t*>(s.record.grad.data), bits);
    poison_ = false;
    overflowed_ = true;
  }
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
