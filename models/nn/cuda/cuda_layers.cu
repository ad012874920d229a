// The CUDA layers: what a model computes with on a GPU.
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cuda_check.h"
#include "cuda_modules.h"
#include "dtbench/plugin.hpp"
#include "kernels.h"

namespace dtb::nn {
namespace cuda {
namespace {

class CudaCrossEntropy : public CrossEntropy {
 public:
  CudaCrossEntropy(CudaContext& ctx, int64_t classes, double labelSmoothing)
      : ctx_(ctx), classes_(classes), smoothing_(labelSmoothing) {}

  LossResult forward(const float* logits, const int32_t* labels, int64_t n) override {
    n_ = n;
    const size_t count = static_cast<size_t>(n);
    const size_t resultBytes = count * (sizeof(double) + sizeof(int32_t));
    // Pinned: [loss per sample (double)][hit per sample][labels], doubles first for alignment.
    auto* staged = static_cast<char*>(staging_.bytes(resultBytes + count * sizeof(int32_t)));
    std::memcpy(staged + resultBytes, labels, count * sizeof(int32_t));  // borrowed for this call only
    auto* deviceLabels = static_cast<int32_t*>(labels_.bytes(count * sizeof(int32_t)));
    check(cudaMemcpyAsync(deviceLabels, staged + resultBytes, count * sizeof(int32_t), cudaMemcpyHostToDevice,
                          ctx_.stream()),
          "labels to the GPU");
    auto* loss = static_cast<double*>(perSample_.bytes(resultBytes));
    auto* correct = reinterpret_cast<int32_t*>(loss + n);
    crossEntropyForward(ctx_.stream(), logits, deviceLabels, n, classes_, smoothing_,
                        probabilities_.floats(static_cast<uint64_t>(n * classes_)), loss, correct);
    // The loss is read on the host each step, as PyTorch's loss.item().
    check(cudaMemcpyAsync(staged, loss, resultBytes, cudaMemcpyDeviceToHost, ctx_.stream()),
          "the loss to the host");
    ctx_.synchronize();
    const auto* hostLoss = reinterpret_cast<const double*>(staged);
    const auto* hostCorrect = reinterpret_cast<const int32_t*>(hostLoss + n);
    LossResult result;
    double total = 0;
    for (int64_t i = 0; i < n; ++i) {
      total += hostLoss[i];
      result.correct += static_cast<uint32_t>(hostCorrect[i]);
    }
    result.loss = n > 0 ? total / static_cast<double>(n) : 0.0;
    return result;
  }

  const float* backward() override {
    float* dlogits = dlogits_.floats(static_cast<uint64_t>(n_ * classes_));
    crossEntropyBackward(ctx_.stream(), static_cast<const float*>(probabilities_.data()),
                         static_cast<const int32_t*>(labels_.data()), n_, classes_, smoothing_, dlogits);
    return dlogits;
  }

 private:
  CudaContext& ctx_;
  int64_t classes_;
  double smoothing_;
  int64_t n_ = 0;
  PinnedBuffer staging_;
  DeviceBuffer labels_{ctx_.memory()}, perSample_{ctx_.memory()}, probabilities_{ctx_.memory()},
      dlogits_{ctx_.memory()};
};

class CudaLayers : public Layers {
 public:
  explicit CudaLayers(const CudaLayerOptions& options) : ctx_(options) {}

  dtb_device_t device() const override { return {DTB_DEVICE_CUDA, ctx_.options().device}; }

  std::unique_ptr<Module> conv(ParameterRegistry& registry, const std::string& name, const Conv2dSpec& spec,
                               bool bias) override {
    return std::make_unique<ConvModule>(ctx_, spec, registerConv(registry, name, spec, bias));
  }
  std::unique_ptr<Module> batchNorm(ParameterRegistry& registry, const std::string& name,
                                    int64_t channels) override {
    return std::make_unique<BatchNormModule>(ctx_, registerBatchNorm(registry, name, channels), channels);
  }
  std::unique_ptr<Module> relu(bool clipAtSix) override {
    return std::make_unique<ReluModule>(ctx_, clipAtSix);
  }
  std::unique_ptr<Module> maxPool(const PoolSpec& spec) override {
    return std::make_unique<MaxPoolModule>(ctx_, spec);
  }
  std::unique_ptr<Module> globalAvgPool() override { return std::make_unique<GlobalAvgPoolModule>(ctx_); }
  std::unique_ptr<Module> linear(ParameterRegistry& registry, const std::string& name, int64_t in,
                                 int64_t out) override {
    return std::make_unique<LinearModule>(ctx_, registerLinear(registry, name, in, out), in, out);
  }
  std::unique_ptr<Module> dropout(const DropoutSpec& spec) override {
    std::shared_ptr<uint64_t>& calls = dropoutCalls_[spec.seed];
    if (!calls) calls = std::make_shared<uint64_t>(0);
    return std::make_unique<DropoutModule>(ctx_, spec, calls);
  }
  std::unique_ptr<Module> residual(std::unique_ptr<Module> main, std::unique_ptr<Module> shortcut,
                                   bool reluAfter) override {
    return std::make_unique<Residual>(ctx_, std::move(main), std::move(shortcut), reluAfter);
  }
  std::unique_ptr<CrossEntropy> crossEntropy(int64_t classes, double labelSmoothing) override {
    return std::make_unique<CudaCrossEntropy>(ctx_, classes, labelSmoothing);
  }

  const float* input(const float* data, dtb_device_t where, uint64_t count) override {
    if (where.type == DTB_DEVICE_CUDA && where.index == ctx_.options().device) {
      // The host copied it here on its own stream and waited for the copy:
      // the model's stream may read it at once.
      return data;
    }
    if (where.type != DTB_DEVICE_HOST) {
      throw Error(DTB_STATUS_INVALID_ARGUMENT,
                  "the batch's inputs are on device " + std::to_string(where.type) + ":" +
                      std::to_string(where.index) + ", not on this model's GPU " +
                      std::to_string(ctx_.options().device) + " or the host");
    }
    const float* host = data;
    const size_t bytes = count * sizeof(float);
    void* staged = staging_.bytes(bytes);
    std::memcpy(staged, host, bytes);  // the batch is borrowed for the forward call only
    float* x = input_.floats(count);
    check(cudaMemcpyAsync(x, staged, bytes, cudaMemcpyHostToDevice, ctx_.stream()), "the batch to the GPU");
    return x;
  }

  // Values copied from their host initialisation, gradients zeroed.
  void place(ParameterRegistry& registry) override {
    const dtb_device_t gpu = device();
    // A copy of the memory (the host's table and the GPU): the parameters
    // may outlive this context.
    const auto free = [memory = ctx_.memory()](void* p) { memory.release(p); };
    for (uint32_t i = 0; i < registry.paramCount(); ++i) {
      Parameter& p = registry.param(i);
      const size_t bytes = p.count() * sizeof(float);
      std::shared_ptr<void> valueOwner(ctx_.memory().allocate(bytes, DTB_MEM_PARAMS, "a parameter"), free);
      void* value = valueOwner.get();
      std::shared_ptr<void> gradOwner(ctx_.memory().allocate(bytes, DTB_MEM_GRADS, "a gradient"), free);
      void* grad = gradOwner.get();
      check(cudaMemcpy(value, p.value(), bytes, cudaMemcpyHostToDevice), "a parameter to the GPU");
      check(cudaMemset(grad, 0, bytes), "zeroing a gradient");
      p.adopt(gpu, std::move(valueOwner), std::move(gradOwner));
    }
  }

  void synchronize() override { ctx_.synchronize(); }
  void* handOffStream() const override { return ctx_.options().queuedHandOff ? ctx_.stream() : nullptr; }

 private:
  CudaContext ctx_;
  PinnedBuffer staging_;
  DeviceBuffer input_{ctx_.memory()};
  // One stream of draws a seed: the forward calls of its modules, counted.
  std::map<uint64_t, std::shared_ptr<uint64_t>> dropoutCalls_;
};

}  // namespace
}  // namespace cuda

std::unique_ptr<Layers> makeCudaLayers(const CudaLayerOptions& options) {
  return std::make_unique<cuda::CudaLayers>(options);
}

}  // namespace dtb::nn
