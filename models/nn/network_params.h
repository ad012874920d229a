// The model parameters that Network reads, declared once for every plugin
// built on it: each lists the CUDA layers' three (CudaLayerOptions, read when
// the model computes on a GPU) in its kParams, and an image model with a
// choice of first layers the stem too (its header says what its stems are).
#pragma once

#include "dtbench/settings.hpp"

namespace dtb::nn {

inline constexpr StringSetting kStem{
    "stem",
    "auto",
    "First layers: imagenet (torchvision's, strided for 224x224 samples), cifar (stride 1, as the papers' "
    "CIFAR variants), auto (cifar for samples up to 64 pixels high)",
    {},
    "auto|cifar|imagenet"};

inline constexpr BoolSetting kCudnnBenchmark{
    "cudnn_benchmark", "false",
    "On a GPU: time every cuDNN convolution algorithm once per input shape and keep the fastest "
    "(torch.backends.cudnn.benchmark); else cuDNN's heuristics choose"};

inline constexpr BoolSetting kWaitForGradients{
    "wait_for_gradients", "false",
    "On a GPU: wait for each layer's work before reporting its gradients ready (as before ABI 1.13) instead "
    "of handing them over queued, the host ordering its streams with CUDA events; to measure what the "
    "waits cost"};

inline constexpr BoolSetting kAllowTf32{
    "allow_tf32", "true",
    "On a GPU: fp32 convolutions may run on tensor cores in TF32 (torch.backends.cudnn.allow_tf32, on by "
    "default in PyTorch); fully connected layers stay full fp32 as PyTorch's matmul default"};

}  // namespace dtb::nn
