// Where a mixed-precision run keeps the low-precision copies of the
// parameters and gradients that strategies see (train/mixed_precision.h),
// and how it converts between them and the model's f32 tensors: in host
// memory with the host's loops for a model on the CPU, in GPU memory with
// kernels on the host's stream of that GPU for a model on a GPU. Both
// answer the same calls, so MixedPrecision's logic is one, and a test can
// put a stand-in in the GPU's place.
#pragma once

#include <cstdint>
#include <memory>

#include "dtbench/dtbench.h"

namespace dtb::core {

class LowPrecisionStore {
 public:
  virtual ~LowPrecisionStore() = default;

  // The device the copies live on (what the strategy's records say).
  virtual dtb_device_t device() const = 0;
  // Zeroed storage for `count` two-byte elements, and back.
  virtual void* allocate(uint64_t count) = 0;
  virtual void release(void* data) = 0;

  // to = from x scale, rounded to nearest even into `dtype` (bf16 or f16);
  // an inf or NaN among the results is noted (overflowNoted) while
  // watching. On a GPU queued, not waited for.
  virtual void round(const float* from, uint16_t* to, uint64_t count, dtb_dtype_t dtype, float scale) = 0;
  // to = from, exactly (queued on a GPU: settle() before the model reads it).
  virtual void widen(const uint16_t* from, float* to, uint64_t count, dtb_dtype_t dtype) = 0;
  // The first element of `to` becomes `bits` (an injected overflow).
  virtual void setFirst(uint16_t* to, uint16_t bits) = 0;
  // Notes an inf or NaN among `count` values of `dtype`, as round() does.
  virtual void noteNonFinite(const uint16_t* values, uint64_t count, dtb_dtype_t dtype) = 0;
  // Whether anything noted since clearOverflow() was inf or NaN; on a GPU
  // it waits for the checks queued so far (once a step, at optim_check).
  virtual bool overflowNoted() = 0;
  virtual void clearOverflow() = 0;
  // Whether round() notes overflows (fp16's loss scaling reads them; bf16,
  // which has f32's range, needs no check: a GPU then launches none).
  void watchOverflow(bool watch) { watching_ = watch; }
  bool watching() const { return watching_; }
  // Returns once what was queued has run, so the model's own stream reads
  // the widened values (nothing to do on the host).
  virtual void settle() = 0;

 private:
  bool watching_ = true;
};

// The store for tensors on `device`: the host, or a GPU (whose calls throw
// GpuUnavailable in a build without CUDA).
std::unique_ptr<LowPrecisionStore> makeLowPrecisionStore(dtb_device_t device);

}  // namespace dtb::core
