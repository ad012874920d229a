// The numeric precision a run trains in (the run setting `precision`):
//   fp32  everything in f32, as before;
//   bf16  bf16 parameters and gradients: what strategies reduce, shard and
//         hand the optimizer is bf16, the optimizer updates an f32 master
//         copy (DeepSpeed's bf16 optimizer, PyTorch AMP's master weights);
//   fp16  the same in IEEE half precision, with dynamic loss scaling
//         (train/loss_scaler.h), as DeepSpeed's fp16 optimizer.
// On the CPU the models compute in f32 on the rounded values (no AVX-512
// BF16 or FP16 on the machines dtbench is built on): the parameters a
// forward sees and the gradients a strategy moves are exactly the low
// precision's, the activations are f32 (docs/mixed-precision.md).
#pragma once

#include <cstdint>
#include <string>

#include "dtbench/dtbench.h"

namespace dtb::core {

enum class Precision : uint8_t { kFp32, kBf16, kFp16 };

// Throws std::invalid_argument naming the choices.
Precision parsePrecision(const std::string& name);
const char* precisionName(Precision precision);
// The dtype of the parameters and gradients strategies see.
dtb_dtype_t precisionDtype(Precision precision);

// `count` f32 values times `scale`, rounded to nearest even into `dtype`
// (DTB_DTYPE_BF16 or DTB_DTYPE_F16); returns false when one came out
// infinite or NaN (an fp16 overflow: the loss scale is too large).
bool roundToLowPrecision(const float* from, uint16_t* to, uint64_t count, dtb_dtype_t dtype, float scale);
// And back, exactly.
void widenFromLowPrecision(const uint16_t* from, float* to, uint64_t count, dtb_dtype_t dtype);
// No inf or NaN among `count` values of `dtype` (bf16 or f16) at `values`.
bool allFinite(const uint16_t* values, uint64_t count, dtb_dtype_t dtype);

}  // namespace dtb::core
