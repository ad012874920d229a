// Where a network computes: the layers of one device. A model builds its
// graph from a Layers (conv, batch norm, ...) and never names a device;
// CpuLayers makes oneDNN modules, CudaLayers (cuda/) cuDNN and cuBLAS ones,
// with the same parameters in the same order (layer_parameters.h), so a
// strategy cannot tell them apart except by the tensors' device.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "dtbench/dtbench.h"
#include "dtbench/plugin.hpp"
#include "layer_specs.h"
#include "loss.h"
#include "module.h"
#include "parameter_registry.h"

namespace dtb::nn {

// Softmax cross-entropy over the logits of the device's last module.
class CrossEntropy {
 public:
  virtual ~CrossEntropy() = default;
  // `logits` on the device, [n, classes]; `labels` in host memory.
  virtual LossResult forward(const float* logits, const int32_t* labels, int64_t n) = 0;
  // d(mean loss)/d(logits) of the last forward, on the device.
  virtual const float* backward() = 0;
};

class Layers {
 public:
  virtual ~Layers() = default;

  virtual dtb_device_t device() const = 0;

  virtual std::unique_ptr<Module> conv(ParameterRegistry& registry, const std::string& name,
                                       const Conv2dSpec& spec, bool bias = false) = 0;
  virtual std::unique_ptr<Module> batchNorm(ParameterRegistry& registry, const std::string& name,
                                            int64_t channels) = 0;
  // ReLU, or ReLU6 (clipped at 6) for MobileNetV2.
  virtual std::unique_ptr<Module> relu(bool clipAtSix = false) = 0;
  virtual std::unique_ptr<Module> maxPool(const PoolSpec& spec) = 0;
  // [n, c, h, w] -> [n, c, 1, 1]: AdaptiveAvgPool2d(1).
  virtual std::unique_ptr<Module> globalAvgPool() = 0;
  // Fully connected over the flattened input: [n, c, h, w] -> [n, out, 1, 1].
  virtual std::unique_ptr<Module> linear(ParameterRegistry& registry, const std::string& name, int64_t in,
                                         int64_t out) = 0;
  // Inverted dropout (DropoutSpec says how it draws).
  virtual std::unique_ptr<Module> dropout(const DropoutSpec& spec) = 0;
  // y = main(x) + shortcut(x) (null: the identity), then ReLU if asked.
  virtual std::unique_ptr<Module> residual(std::unique_ptr<Module> main, std::unique_ptr<Module> shortcut,
                                           bool reluAfter) = 0;
  virtual std::unique_ptr<CrossEntropy> crossEntropy(int64_t classes, double labelSmoothing) = 0;

  // The batch's inputs (borrowed for the call) where the first module reads
  // them; valid until the next call. In host memory, or already in the
  // memory of the GPU the layers compute on (then used where they are); any
  // other device is an Error.
  virtual const float* input(const float* data, dtb_device_t where, uint64_t count) = 0;
  // Once the model is built: its parameters moved where the layers compute
  // (nothing to do on the host).
  virtual void place(ParameterRegistry& registry) = 0;
  // Returns once everything queued so far has run (nothing on the host).
  virtual void synchronize() = 0;
  // The CUDA stream the layers compute on where they call the hooks without
  // waiting for it (CudaLayerOptions::queuedHandOff); else null.
  virtual void* handOffStream() const { return nullptr; }
};

// What the CUDA layers are asked to do beyond PyTorch's defaults.
struct CudaLayerOptions {
  int device = 0;
  // The model's host: the layers' GPU memory is its alloc() (counted in the
  // rank's GPU figures); nullptr (the layer tests) for cudaMalloc.
  const dtb_host_t* host = nullptr;
  // torch.backends.cudnn.benchmark: time every convolution algorithm once
  // per input shape and keep the fastest (else cuDNN's heuristics choose).
  bool benchmark = false;
  // torch.backends.cudnn.allow_tf32 (true by default in PyTorch): fp32
  // convolutions may run on tensor cores in TF32.
  bool allowTf32 = true;
  // The host orders its streams after the model's with CUDA events (model.h's
  // gpu_stream, a host of ABI 1.13 or later): a layer then calls grad_ready
  // and layer_begin with its work still queued, instead of waiting for its
  // stream first. Off (the layer tests, an older host, the model parameter
  // wait_for_gradients): it waits.
  bool queuedHandOff = false;
};

// The oneDNN layers (the host), or the CUDA layers on `options.device`;
// without CUDA in this build, DTB_STATUS_UNSUPPORTED saying so.
std::unique_ptr<Layers> makeCpuLayers();
std::unique_ptr<Layers> makeCudaLayers(const CudaLayerOptions& options);

}  // namespace dtb::nn
