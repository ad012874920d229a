// Element-wise copies on a GPU for the host's tensor_copy service (what a
// strategy fills buckets and fusion buffers with), and the stream they run
// on. A build without CUDA has the same calls; they throw GpuUnavailable.
#pragma once

#include <cstdint>

#include "dtbench/dtbench.h"

namespace dtb::core {

// The host's stream of GPU `device` (a cudaStream_t), made on first use and
// kept for the process. A blocking stream, on purpose: work on the legacy
// default stream (the optimizer's kernels, staging's synchronous copies)
// waits for what was queued here before it and the other way round, so
// tensor copies, collectives set on this stream and the optimizer run in
// the order the strategy issued them with no host waits between.
void* gpuWorkStream(int device);
// Returns once everything queued so far on every GPU's work stream has run
// (nothing to wait for where none was made, or in a build without CUDA).
void gpuSettleWorkStreams();

// Queues dst[i] = scale * src[i] (+ dst[i] when `accumulate`), i < count, on
// gpuWorkStream(device); src null: zeros. Returns before it ran. Pointers
// that are not memory of GPU `device` are std::invalid_argument (a kernel
// would fault and break the whole CUDA context); a CUDA error is
// std::runtime_error saying which.
void gpuScaledCopy(float* dst, const float* src, uint64_t count, float scale, bool accumulate, int device);
// The same between f32, f16 and bf16 arrays of any of the three (since ABI
// 1.10): computed in f32, rounded to nearest even into dst's dtype.
void gpuTypedCopy(void* dst, dtb_dtype_t dstType, const void* src, dtb_dtype_t srcType, uint64_t count,
                  float scale, bool accumulate, int device);
// Queues a look for inf and NaN among `count` values of `dtype` (f32, f16 or
// bf16) on gpuWorkStream(device): `*flag` (an int of that GPU's memory) is
// set to 1 where one is found and left as it was where none is, so one flag
// gathers a whole step's gradients and is read once (mixed precision's
// overflow check, train/low_precision_store.h).
void gpuFlagNonFinite(const void* values, dtb_dtype_t dtype, uint64_t count, int* flag, int device);

}  // namespace dtb::core
