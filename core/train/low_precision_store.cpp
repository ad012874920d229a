#include "train/low_precision_store.h"

#include <cstdlib>
#include <new>

#include "cuda/cuda_memory.h"
#include "cuda/gpu_tensor_ops.h"
#include "train/precision.h"

namespace dtb::core {
namespace {

class HostStore final : public LowPrecisionStore {
 public:
  dtb_device_t device() const override { return {DTB_DEVICE_HOST, 0}; }
  void* allocate(uint64_t count) override {
    void* data = std::calloc(count > 0 ? count : 1, sizeof(uint16_t));
    if (data == nullptr) throw std::bad_alloc();
    return data;
  }
  void release(void* data) override { std::free(data); }
  void round(const float* from, uint16_t* to, uint64_t count, dtb_dtype_t dtype, float scale) override {
    const bool finite = roundToLowPrecision(from, to, count, dtype, scale);  // (the check costs nothing here)
    if (watching()) overflow_ |= !finite;
  }
  void widen(const uint16_t* from, float* to, uint64_t count, dtb_dtype_t dtype) override {
    widenFromLowPrecision(from, to, count, dtype);
  }
  void setFirst(uint16_t* to, uint16_t bits) override { *to = bits; }
  void noteNonFinite(const uint16_t* values, uint64_t count, dtb_dtype_t dtype) override {
    overflow_ |= !allFinite(values, count, dtype);
  }
  bool overflowNoted() override { return overflow_; }
  void clearOverflow() override { overflow_ = false; }
  void settle() override {}

 private:
  bool overflow_ = false;
};

// Everything on the host's stream of the GPU (gpu_tensor_ops.h), where the
// strategy's tensor copies of the same records are queued after it; the
// overflow flag is an int in that GPU's memory, read once a step.
class GpuStore final : public LowPrecisionStore {
 public:
  explicit GpuStore(int gpu) : gpu_(gpu), flag_(sizeof(int), gpu) {}
  dtb_device_t device() const override { return {DTB_DEVICE_CUDA, gpu_}; }
  void* allocate(uint64_t count) override {
    return gpuAllocate((count > 0 ? count : 1) * sizeof(uint16_t), gpu_);
  }
  void release(void* data) override { gpuFree(data, gpu_); }
  void round(const float* from, uint16_t* to, uint64_t count, dtb_dtype_t dtype, float scale) override {
    gpuTypedCopy(to, dtype, from, DTB_DTYPE_F32, count, scale, false, gpu_);
    if (watching()) noteNonFinite(to, count, dtype);
  }
  void widen(const uint16_t* from, float* to, uint64_t count, dtb_dtype_t dtype) override {
    gpuTypedCopy(to, DTB_DTYPE_F32, from, dtype, count, 1.0f, false, gpu_);
  }
  void setFirst(uint16_t* to, uint16_t bits) override {
    settle();  // after the rounding queued into it
    copyToGpu(to, &bits, sizeof bits, gpu_);
  }
  void noteNonFinite(const uint16_t* values, uint64_t count, dtb_dtype_t dtype) override {
    gpuFlagNonFinite(values, dtype, count, static_cast<int*>(flag_.data()), gpu_);
  }
  bool overflowNoted() override {
    settle();
    int flag = 0;
    copyFromGpu(&flag, flag_.data(), sizeof flag, gpu_);
    return flag != 0;
  }
  void clearOverflow() override {
    // Queued on the host's stream before the checks it clears for, not
    // waited for (from pageable memory the driver may wait for the stream).
    static const int kZero = 0;  // lives while the copy may read it
    copyToGpuOn(flag_.data(), &kZero, sizeof kZero, gpuWorkStream(gpu_));
  }
  void settle() override { gpuSettleWorkStreams(); }

 private:
  int gpu_;
  GpuBuffer flag_;
};

}  // namespace

std::unique_ptr<LowPrecisionStore> makeLowPrecisionStore(dtb_device_t device) {
  if (device.type == DTB_DEVICE_CUDA) return std::make_unique<GpuStore>(device.index);
  return std::make_unique<HostStore>();
}

}  // namespace dtb::core
