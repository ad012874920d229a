// What a run in bf16 or fp16 puts between the model and the strategy. The
// model computes in f32 (precision.h says why); the strategy gets records of
// its own for every parameter, whose value and gradient are bf16 (or fp16)
// tensors held here, with the model parameter's index, name, layer and
// flags. So everything a strategy reduces, shards, buckets and hands to
// optim_update is in the low precision, and its bytes on the wire are half
// of f32's, as in DeepSpeed and PyTorch AMP:
//   - a gradient is rounded into its record as the model reports it ready
//     (scaled by the loss scale first, which is what scaling the loss
//     before backward does to it), and an overflow noted;
//   - after an applied step the model's f32 values are set from the
//     records' (updated by the master-weight optimizer, gathered by ZeRO),
//     so the next forward computes on the low-precision parameters.
// At creation the model's values are rounded to the low precision too, as
// model.half() / model.bfloat16() does before training.
// The records live where the model's parameters do: host memory for a model
// on the CPU, the same GPU's memory for a model there, converted by kernels
// on the host's stream of that GPU (train/low_precision_store.h); an
// overflow is then gathered in a flag on the GPU and read once a step.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "dtbench/model.h"
#include "train/loss_scaler.h"
#include "train/low_precision_store.h"
#include "train/precision.h"

namespace dtb::core {

class MixedPrecision {
 public:
  // `precision` is bf16 or fp16 (std::invalid_argument otherwise); the
  // model's parameters are f32 tensors, all on the host or all on one GPU
  // (std::invalid_argument naming the first that is not). fp16 scales the
  // loss with `scaler`. `store` keeps and converts the records (null: the
  // one for the parameters' device).
  MixedPrecision(Precision precision, dtb_param_t* const* modelParams, uint32_t count,
                 LossScalerConfig scaler = {}, std::unique_ptr<LowPrecisionStore> store = nullptr);
  ~MixedPrecision();
  MixedPrecision(const MixedPrecision&) = delete;
  MixedPrecision& operator=(const MixedPrecision&) = delete;

  Precision precision() const { return precision_; }
  dtb_dtype_t dtype() const { return dtype_; }
  // The records a strategy is created over, in index order.
  dtb_param_t* const* params() const { return pointers_.data(); }
  uint32_t count() const { return static_cast<uint32_t>(pointers_.size()); }
  // Frees a record's value or gradient storage (a strategy's param_release:
  // ZeRO holds them in its own buffers, and points the record at those
  // while it needs them); the record's data is null until it does. False:
  // `record` is not one of these records.
  bool release(const dtb_param_t& record, dtb_param_part_t part);

  // The records' values from the model's (after the model's values were set
  // from outside: a checkpoint, rank 0's weights), and the model's rounded.
  void valuesFromModel();
  // The model's values from the records', after an applied step.
  void valuesToModel();
  // The model's values of one layer's parameters from the records', as its
  // forward begins: for a strategy that moves the parameters between
  // layers (ZeRO-3 gathers a layer's into a buffer it points the records
  // at, and frees it after), that is the only time they are whole.
  // `settle`: the host waits for the widening; false where the model's
  // stream is ordered after it instead (train/gpu_hand_off.h).
  void layerValuesToModel(uint32_t layer, bool settle = true);

  // A backward begins: no gradient has arrived, none overflowed.
  void beginBackward();
  // Rounds the model parameter's gradient (times the loss scale) into its
  // record, which it returns for the strategy's grad_ready.
  dtb_param_t* gradientReady(const dtb_param_t& modelParam);
  // Rounds the gradients the model did not report (a parameter no loss
  // reached keeps the zeros backward wrote).
  void finishBackward();
  // The next gradient rounded gets an inf in its first element (a fault
  // the matrix injects: worker/fault_injector.h).
  void poisonNextGradient() { poison_ = true; }
  // An inf or NaN in this rank's rounded gradients since beginBackward (on a
  // GPU this waits for the rounding queued so far).
  bool overflowed();
  // Whether an inf or NaN is among `count` tensors of the run's low
  // precision on the records' device (the reduced gradients a strategy
  // hands optim_check); asked after overflowed() said false.
  bool nonFiniteIn(const dtb_tensor_t* tensors, uint32_t count);
  dtb_device_t device() const { return store_->device(); }

  // fp16's scale for the coming gradients (1 in bf16, which needs none).
  float lossScale() const { return scaler_ ? static_cast<float>(scaler_->scale()) : 1.0f; }
  // The scale this step's gradients were rounded with: what an update
  // divides them by, though settling the step may since have grown it.
  float gradientScale() const { return gradientScale_; }
  bool scalesLoss() const { return scaler_.has_value(); }
  // An optimizer step begins: not settled, not skipped.
  void beginStep() {
    settled_ = false;
    skipping_ = false;
  }
  // After the ranks agreed whether any overflowed (the host's optim_check):
  // whether the step is applied (false: skipped on every rank alike; the
  // scaler's rules decide the next scale). Always true in bf16.
  bool settleStep(bool anyOverflow);
  bool stepSettled() const { return settled_; }
  // The step is skipped: optim_update leaves parameters be.
  bool skipping() const { return skipping_; }
  const LossScaler* scaler() const { return scaler_ ? &*scaler_ : nullptr; }
  LossScaler* scaler() { return scaler_ ? &*scaler_ : nullptr; }

 private:
  struct Slot {
    dtb_param_t record{};
    void* value = nullptr;  // the storage the store gave, or null once released
    void* grad = nullptr;
    bool arrived = false;
  };
  void roundGradient(uint32_t index);
  // The model's f32 value of parameter `index` from its record's.
  void widen(uint32_t index);

  Precision precision_;
  dtb_dtype_t dtype_;
  std::vector<dtb_param_t*> model_;
  std::vector<std::vector<uint32_t>> byLayer_;  // the parameters' indices per layer
  std::vector<Slot> slots_;
  std::vector<dtb_param_t*> pointers_;
  std::unique_ptr<LowPrecisionStore> store_;
  std::optional<LossScaler> scaler_;
  bool overflowed_ = false;  // known so far; the store may have noted more
  bool skipping_ = false;
  bool settled_ = false;
  bool poison_ = false;
  float gradientScale_ = 1;
};

}  // namespace dtb::core
