// The layers on a GPU, as Modules: convolution and batch norm on cuDNN, the
// fully connected layer on cuBLAS, the rest as kernels (kernels.h). Each
// registers the parameters its oneDNN twin registers (layer_parameters.h)
// and keeps its output and input gradient in DeviceBuffers the way those
// keep std::vectors. Pointers in and out are GPU memory.
#pragma once

#include <cudnn.h>

#include <map>
#include <memory>
#include <tuple>

#include "cuda_context.h"
#include "device_buffer.h"
#include "layer_parameters.h"
#include "module.h"

namespace dtb::nn::cuda {

class ConvModule : public Module {
 public:
  ConvModule(CudaContext& ctx, const Conv2dSpec& spec, const ConvParameters& params);
  ~ConvModule() override;
  Shape outputShape(const Shape& in) const override;
  const float* forward(const float* x, const Shape& in, const Pass& pass) override;
  const float* backward(const float* dy, const Pass& pass, bool inputGrad) override;

 private:
  // Per input shape: descriptors and the algorithms chosen for them.
  struct Plan;
  Plan& plan(const Shape& in);

  CudaContext& ctx_;
  Conv2dSpec spec_;
  uint32_t layer_;
  Parameter& weight_;
  Parameter* bias_;
  cudnnFilterDescriptor_t filter_ = nullptr;
  cudnnConvolutionDescriptor_t conv_ = nullptr;
  cudnnTensorDescriptor_t biasDesc_ = nullptr;
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::unique_ptr<Plan>> plans_;
  Plan* current_ = nullptr;
  const float* x_ = nullptr;
  Shape in_;
  DeviceBuffer y_{ctx_.memory()}, dx_{ctx_.memory()};
};

// BatchNorm2d: batch statistics while training (running estimates moved by
// momentum 0.1 toward the batch mean and unbiased variance, as cuDNN and
// PyTorch do), running estimates otherwise; eps 1e-5.
class BatchNormModule : public Module {
 public:
  BatchNormModule(CudaContext& ctx, const AffineParameters& params, int64_t channels);
  ~BatchNormModule() override;
  Shape outputShape(const Shape& in) const override { return in; }
  const float* forward(const float* x, const Shape& in, const Pass& pass) override;
  const float* backward(const float* dy, const Pass& pass, bool inputGrad) override;

 private:
  CudaContext& ctx_;
  uint32_t layer_;
  Parameter& weight_;
  Parameter& bias_;
  int64_t channels_;
  cudnnTensorDescriptor_t xDesc_ = nullptr, statsDesc_ = nullptr;
  // The running estimates are the model's state (OTHER); the saved batch
  // statistics, what backward reads.
  DeviceBuffer runningMean_{ctx_.memory(), DTB_MEM_OTHER}, runningVar_{ctx_.memory(), DTB_MEM_OTHER};
  DeviceBuffer savedMean_{ctx_.memory()}, savedInvStd_{ctx_.memory()};
  const float* x_ = nullptr;
  Shape in_;
  DeviceBuffer y_{ctx_.memory()}, dx_{ctx_.memory()};
};

class LinearModule : public Module {
 public:
  LinearModule(CudaContext& ctx, const AffineParameters& params, int64_t in, int64_t out);
  Shape outputShape(const Shape& in) const override { return {in.n, out_, 1, 1}; }
  const float* forward(const float* x, const Shape& in, const Pass& pass) override;
  const float* backward(const float* dy, const Pass& pass, bool inputGrad) override;

 private:
  CudaContext& ctx_;
  uint32_t layer_;
  int64_t in_, out_;
  Parameter& weight_;
  Parameter& bias_;
  const float* x_ = nullptr;
  int64_t n_ = 0;
  DeviceBuffer y_{ctx_.memory()}, dx_{ctx_.memory()};
};

class ReluModule : public Module {
 public:
  ReluModule(CudaContext& ctx, bool clipAtSix) : ctx_(ctx), clip_(clipAtSix) {}
  Shape outputShape(const Shape& in) const override { return in; }
  const float* forward(const float* x, const Shape& in, const Pass& pass) override;
  const float* backward(const float* dy, const Pass& pass, bool inputGrad) override;

 private:
  CudaContext& ctx_;
  bool clip_;
  uint64_t count_ = 0;
  DeviceBuffer y_{ctx_.memory()}, dx_{ctx_.memory()};
};

class MaxPoolModule : public Module {
 public:
  MaxPoolModule(CudaContext& ctx, const PoolSpec& spec) : ctx_(ctx), spec_(spec) {}
  Shape outputShape(const Shape& in) const override;
  const float* forward(const float* x, const Shape& in, const Pass& pass) override;
  const float* backward(const float* dy, const Pass& pass, bool inputGrad) override;

 private:
  CudaContext& ctx_;
  PoolSpec spec_;
  Shape in_;
  DeviceBuffer argmax_{ctx_.memory()}, y_{ctx_.memory()}, dx_{ctx_.memory()};
};

class GlobalAvgPoolModule : public Module {
 public:
  explicit GlobalAvgPoolModule(CudaContext& ctx) : ctx_(ctx) {}
  Shape outputShape(const Shape& in) const override {
    return in.h < 1 || in.w < 1 ? Shape{in.n, in.c, 0, 0} : Shape{in.n, in.c, 1, 1};
  }
  const float* forward(const float* x, const Shape& in, const Pass& pass) override;
  const float* backward(const float* dy, const Pass& pass, bool inputGrad) override;

 private:
  CudaContext& ctx_;
  Shape in_;
  DeviceBuffer y_{ctx_.memory()}, dx_{ctx_.memory()};
};

// `calls` counts the forward calls of every module of the same seed, so each
// call draws afresh (layer_specs.h: one stream a seed).
class DropoutModule : public Module {
 public:
  DropoutModule(CudaContext& ctx, const DropoutSpec& spec, std::shared_ptr<uint64_t> calls)
      : ctx_(ctx), p_(spec.p), seed_(spec.seed), perChannel_(spec.perChannel), calls_(std::move(calls)) {}
  Shape outputShape(const Shape& in) const override { return in; }
  const float* forward(const float* x, const Shape& in, const Pass& pass) override;
  const float* backward(const float* dy, const Pass& pass, bool inputGrad) override;

 private:
  CudaContext& ctx_;
  double p_;
  uint64_t seed_;
  bool perChannel_;
  std::shared_ptr<uint64_t> calls_;
  uint64_t count_ = 0;
  DeviceBuffer mask_{ctx_.memory()}, y_{ctx_.memory()}, dx_{ctx_.memory()};
};

class Residual : public Module {
 public:
  Residual(CudaContext& ctx, std::unique_ptr<Module> main, std::unique_ptr<Module> shortcut, bool reluAfter)
      : ctx_(ctx), main_(std::move(main)), shortcut_(std::move(shortcut)), reluAfter_(reluAfter) {}
  Shape outputShape(const Shape& in) const override { return main_->outputShape(in); }
  const float* forward(const float* x, const Shape& in, const Pass& pass) override;
  const float* backward(const float* dy, const Pass& pass, bool inputGrad) override;

 private:
  CudaContext& ctx_;
  std::unique_ptr<Module> main_, shortcut_;
  bool reluAfter_;
  uint64_t inCount_ = 0, outCount_ = 0;
  DeviceBuffer y_{ctx_.memory()}, dsum_{ctx_.memory()}, dx_{ctx_.memory()};
};

// Telling the host a gradient is ready: where the host orders its streams
// after the model's (a queued hand-off), at once; else once the GPU has
// computed it.
inline void readyOnGpu(CudaContext& ctx, const Pass& pass, Parameter& p) {
  if (!pass.watchesGradients()) return;
  if (!ctx.options().queuedHandOff) ctx.synchronize();
  pass.ready(p);
}

// Before a layer with parameters computes: the strategy's layer_begin may
// take away memory that kernels still queued read (ZeRO-3 hands an earlier
// layer's gathered parameters to the next gather), so where one listens and
// the host does not order the streams, the model's queued work finishes
// first.
inline void beginOnGpu(CudaContext& ctx, const Pass& pass, uint32_t layer, dtb_pass_t kind) {
  if (pass.announcesLayers() && !ctx.options().queuedHandOff) ctx.synchronize();
  pass.begin(layer, kind);
}

}  // namespace dtb::nn::cuda
