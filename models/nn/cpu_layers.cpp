// The oneDNN layers: what a model computes with on the host.
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "dnnl_context.h"
#include "dtbench/plugin.hpp"
#include "layer_modules.h"
#include "layers.h"
#include "residual.h"

namespace dtb::nn {
namespace {

class CpuCrossEntropy : public CrossEntropy {
 public:
  CpuCrossEntropy(int64_t classes, double labelSmoothing) : classes_(classes), smoothing_(labelSmoothing) {}

  LossResult forward(const float* logits, const int32_t* labels, int64_t n) override {
    n_ = n;
    labels_.assign(labels, labels + n);  // the batch is borrowed for the forward call only
    return crossEntropyForward(logits, labels_.data(), n, classes_, smoothing_, probabilities_);
  }
  const float* backward() override {
    dlogits_.resize(static_cast<size_t>(n_ * classes_));
    crossEntropyBackward(probabilities_, labels_.data(), n_, classes_, smoothing_, dlogits_.data());
    return dlogits_.data();
  }

 private:
  int64_t classes_;
  double smoothing_;
  int64_t n_ = 0;
  std::vector<int32_t> labels_;
  std::vector<float> probabilities_, dlogits_;
};

class CpuLayers : public Layers {
 public:
  dtb_device_t device() const override { return {DTB_DEVICE_HOST, 0}; }

  std::unique_ptr<Module> conv(ParameterRegistry& registry, const std::string& name, const Conv2dSpec& spec,
                               bool bias) override {
    return std::make_unique<ConvModule>(dnnl_, spec, registerConv(registry, name, spec, bias));
  }
  std::unique_ptr<Module> batchNorm(ParameterRegistry& registry, const std::string& name,
                                    int64_t channels) override {
    return std::make_unique<BatchNormModule>(registerBatchNorm(registry, name, channels), channels);
  }
  std::unique_ptr<Module> relu(bool clipAtSix) override { return std::make_unique<ReluModule>(clipAtSix); }
  std::unique_ptr<Module> maxPool(const PoolSpec& spec) override {
    return std::make_unique<MaxPoolModule>(spec);
  }
  std::unique_ptr<Module> globalAvgPool() override { return std::make_unique<GlobalAvgPoolModule>(); }
  std::unique_ptr<Module> linear(ParameterRegistry& registry, const std::string& name, int64_t in,
                                 int64_t out) override {
    return std::make_unique<LinearModule>(dnnl_, registerLinear(registry, name, in, out), in, out);
  }
  std::unique_ptr<Module> dropout(const DropoutSpec& spec) override {
    std::shared_ptr<std::mt19937_64>& draws = dropoutDraws_[spec.seed];
    if (!draws) draws = std::make_shared<std::mt19937_64>(spec.seed);
    return std::make_unique<DropoutModule>(spec, draws);
  }
  std::unique_ptr<Module> residual(std::unique_ptr<Module> main, std::unique_ptr<Module> shortcut,
                                   bool reluAfter) override {
    return std::make_unique<Residual>(std::move(main), std::move(shortcut), reluAfter);
  }
  std::unique_ptr<CrossEntropy> crossEntropy(int64_t classes, double labelSmoothing) override {
    return std::make_unique<CpuCrossEntropy>(classes, labelSmoothing);
  }

  const float* input(const float* host, dtb_device_t where, uint64_t count) override {
    if (where.type != DTB_DEVICE_HOST)
      throw Error(DTB_STATUS_INVALID_ARGUMENT,
                  "the batch's inputs are not in host memory, where this model computes");
    input_.assign(host, host + count);  // the batch is borrowed for the forward call only
    return input_.data();
  }
  void place(ParameterRegistry&) override {}
  void synchronize() override {}

 private:
  DnnlContext dnnl_;
  std::vector<float> input_;
  std::map<uint64_t, std::shared_ptr<std::mt19937_64>> dropoutDraws_;  // one stream a seed
};

}  // namespace

std::unique_ptr<Layers> makeCpuLayers() { return std::make_unique<CpuLayers>(); }

}  // namespace dtb::nn
