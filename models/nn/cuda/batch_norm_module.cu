#include <vector>

#include "cuda_check.h"
#include "cuda_modules.h"

namespace dtb::nn::cuda {
namespace {

constexpr float kOne = 1.0f, kZero = 0.0f;
constexpr double kEpsilon = 1e-5, kMomentum = 0.1;  // PyTorch's defaults

}  // namespace

BatchNormModule::BatchNormModule(CudaContext& ctx, const AffineParameters& params, int64_t channels)
    : ctx_(ctx), layer_(params.layer), weight_(params.weight), bias_(params.bias), channels_(channels) {
  check(cudnnCreateTensorDescriptor(&xDesc_), "cudnnCreateTensorDescriptor");
  check(cudnnCreateTensorDescriptor(&statsDesc_), "cudnnCreateTensorDescriptor");
  check(cudnnSetTensor4dDescriptor(statsDesc_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1,
                                   static_cast<int>(channels), 1, 1),
        "cudnnSetTensor4dDescriptor (batch norm statistics)");
  // Running mean 0 and variance 1, as PyTorch starts them.
  const std::vector<float> zeros(channels, 0.0f), ones(channels, 1.0f);
  const size_t bytes = channels * sizeof(float);
  check(cudaMemcpy(runningMean_.bytes(bytes), zeros.data(), bytes, cudaMemcpyHostToDevice),
        "batch norm: mean");
  check(cudaMemcpy(runningVar_.bytes(bytes), ones.data(), bytes, cudaMemcpyHostToDevice),
        "batch norm: variance");
  savedMean_.bytes(bytes);
  savedInvStd_.bytes(bytes);
}

BatchNormModule::~BatchNormModule() {
  if (xDesc_) cudnnDestroyTensorDescriptor(xDesc_);
  if (statsDesc_) cudnnDestroyTensorDescriptor(statsDesc_);
}

const float* BatchNormModule::forward(const float* x, const Shape& in, const Pass& pass) {
  beginOnGpu(ctx_, pass, layer_, DTB_PASS_FORWARD);
  x_ = x;
  in_ = in;
  const auto i = [](int64_t v) { return static_cast<int>(v); };
  check(cudnnSetTensor4dDescriptor(xDesc_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, i(in.n), i(in.c), i(in.h),
                                   i(in.w)),
        "cudnnSetTensor4dDescriptor (batch norm input)");
  float* y = y_.floats(in.count());
  auto* mean = static_cast<float*>(runningMean_.data());
  auto* variance = static_cast<float*>(runningVar_.data());
  if (pass.training()) {
    check(cudnnBatchNormalizationForwardTraining(
              ctx_.cudnn(), CUDNN_BATCHNORM_SPATIAL, &kOne, &kZero, xDesc_, x, xDesc_, y, statsDesc_,
              weight_.value(), bias_.value(), kMomentum, mean, variance, kEpsilon,
              static_cast<float*>(savedMean_.data()), static_cast<float*>(savedInvStd_.data())),
          "cudnnBatchNormalizationForwardTraining");
  } else {
    check(cudnnBatchNormalizationForwardInference(ctx_.cudnn(), CUDNN_BATCHNORM_SPATIAL, &kOne, &kZero,
                                                  xDesc_, x, xDesc_, y, statsDesc_, weight_.value(),
                                                  bias_.value(), mean, variance, kEpsilon),
          "cudnnBatchNormalizationForwardInference");
  }
  return y;
}

const float* BatchNormModule::backward(const float* dy, const Pass& pass, bool inputGrad) {
  beginOnGpu(ctx_, pass, layer_, DTB_PASS_BACKWARD);
  // dx comes with the parameter gradients at no extra cost: always computed.
  float* dx = dx_.floats(in_.count());
  check(cudnnBatchNormalizationBackward(ctx_.cudnn(), CUDNN_BATCHNORM_SPATIAL, &kOne, &kZero, &kOne, &kZero,
                                        xDesc_, x_, xDesc_, dy, xDesc_, dx, statsDesc_, weight_.value(),
                                        weight_.grad(), bias_.grad(), kEpsilon, savedMean_.data(),
                                        savedInvStd_.data()),
        "cudnnBatchNormalizationBackward");
  readyOnGpu(ctx_, pass, bias_);
  readyOnGpu(ctx_, pass, weight_);
  return inputGrad ? dx : nullptr;
}

}  // namespace dtb::nn::cuda
