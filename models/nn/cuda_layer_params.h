// The model parameters of the CUDA layers (CudaLayerOptions), declared once
// for every plugin built on Network: each lists these two in its kParams,
// and Network reads them by these names when the model computes on a GPU.
#pragma once

#include "dtbench/dtbench.h"

namespace dtb::nn {

inline constexpr const char* kCudnnBenchmarkKey = "cudnn_benchmark";
inline constexpr const char* kAllowTf32Key = "allow_tf32";

inline constexpr dtb_param_spec_t kCudnnBenchmarkParam = {
    sizeof(dtb_param_spec_t),
    kCudnnBenchmarkKey,
    DTB_PARAM_BOOL,
    "false",
    "On a GPU: time every cuDNN convolution algorithm once per input shape and keep the fastest "
    "(torch.backends.cudnn.benchmark); else cuDNN's heuristics choose",
    0,
    0,
    0,
    nullptr};

inline constexpr dtb_param_spec_t kAllowTf32Param = {
    sizeof(dtb_param_spec_t),
    kAllowTf32Key,
    DTB_PARAM_BOOL,
    "true",
    "On a GPU: fp32 convolutions may run on tensor cores in TF32 (torch.backends.cudnn.allow_tf32, on by "
    "default in PyTorch); fully connected layers stay full fp32 as PyTorch's matmul default",
    0,
    0,
    0,
    nullptr};

}  // namespace dtb::nn
