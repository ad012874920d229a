// my_plugin — a dtbench model. It starts as softmax regression (logits =
// W x + b over the flattened sample, mean cross-entropy): one layer, two
// parameters. Replace forward() and backward() with your network; keep the
// rules of dtbench/model.h: read each parameter's value.data and grad.data
// afresh after the layer's layer_begin hook (a strategy may move them), write
// every gradient in backward and report it ready (grad_ready) once it is
// final.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "dtbench/descriptors.hpp"
#include "dtbench/model.h"

namespace {

class MyPlugin {
 public:
  MyPlugin(const dtb_host_t* host, const dtb_model_setup_t& setup)
      : host_(host), classes_(setup.num_classes) {
    for (int i = 0; i < setup.input_ndim; ++i) inputs_ *= static_cast<uint32_t>(setup.input_shape[i]);
    weight_.resize(classes_ * inputs_);
    weightGrad_.resize(weight_.size());
    bias_.resize(classes_);
    biasGrad_.resize(classes_);
    std::mt19937_64 rng(setup.seed);  // equal seeds, equal weights on every rank
    std::uniform_real_distribution<float> uniform(-0.01f, 0.01f);
    for (float& w : weight_) w = uniform(rng);
    describe(0, "fc.weight", weight_, weightGrad_);
    describe(1, "fc.bias", bias_, biasGrad_);
  }

  const dtb_host_t* host() const { return host_; }
  dtb_param_t* const* params() const { return pointers_; }
  uint32_t paramCount() const { return 2; }
  const char* const* layerNames() const { return kLayers; }
  uint32_t layerCount() const { return 1; }
  void setTraining(bool) {}  // no dropout or batch norm

  void forward(const dtb_batch_t& batch, const dtb_step_hooks_t* hooks, dtb_forward_result_t* out) {
    if (hooks && hooks->layer_begin) dtb::check(hooks->layer_begin(hooks->user, 0, DTB_PASS_FORWARD), "hook");
    const auto* w = static_cast<const float*>(params_[0].value.data);
    const auto* b = static_cast<const float*>(params_[1].value.data);
    const auto* x = static_cast<const float*>(batch.inputs.data);
    const auto* labels = static_cast<const int32_t*>(batch.labels.data);
    input_.assign(x, x + batch.size * inputs_);
    labels_.assign(labels, labels + batch.size);
    probabilities_.assign(batch.size * classes_, 0.0f);
    double loss = 0;
    out->correct = 0;
    for (uint32_t n = 0; n < batch.size; ++n) {
      float* p = &probabilities_[n * classes_];
      for (uint32_t c = 0; c < classes_; ++c) {
        p[c] = b[c];
        for (uint32_t i = 0; i < inputs_; ++i) p[c] += w[c * inputs_ + i] * x[n * inputs_ + i];
      }
      uint32_t best = 0;
      for (uint32_t c = 1; c < classes_; ++c) best = p[c] > p[best] ? c : best;
      out->correct += best == static_cast<uint32_t>(labels[n]);
      double sum = 0;
      for (uint32_t c = 0; c < classes_; ++c) sum += std::exp(p[c] - p[best]);
      for (uint32_t c = 0; c < classes_; ++c) p[c] = static_cast<float>(std::exp(p[c] - p[best]) / sum);
      loss -= std::log(std::max(p[labels[n]], 1e-30f));
    }
    out->loss = batch.size ? loss / batch.size : 0.0;
  }

  void backward(const dtb_step_hooks_t* hooks) {
    if (hooks && hooks->layer_begin)
      dtb::check(hooks->layer_begin(hooks->user, 0, DTB_PASS_BACKWARD), "hook");
    auto* gw = static_cast<float*>(params_[0].grad.data);
    auto* gb = static_cast<float*>(params_[1].grad.data);
    const uint32_t batch = static_cast<uint32_t>(labels_.size());
    std::fill(gw, gw + weight_.size(), 0.0f);
    std::fill(gb, gb + classes_, 0.0f);
    for (uint32_t n = 0; n < batch; ++n) {
      for (uint32_t c = 0; c < classes_; ++c) {
        const float d = (probabilities_[n * classes_ + c] - (labels_[n] == static_cast<int32_t>(c))) /
                        static_cast<float>(batch);
        gb[c] += d;
        for (uint32_t i = 0; i < inputs_; ++i) gw[c * inputs_ + i] += d * input_[n * inputs_ + i];
      }
    }
    for (dtb_param_t& p : params_) {
      if (hooks && hooks->grad_ready) dtb::check(hooks->grad_ready(hooks->user, &p), "grad_ready");
    }
  }

 private:
  static constexpr const char* kLayers[] = {"fc"};

  void describe(uint32_t index, const char* name, std::vector<float>& value, std::vector<float>& grad) {
    dtb_param_t& p = params_[index];
    p.struct_size = sizeof(dtb_param_t);
    p.index = index;
    p.name = name;
    p.value = dtb::hostTensor(value.data(), value.size(), DTB_DTYPE_F32);
    p.grad = dtb::hostTensor(grad.data(), grad.size(), DTB_DTYPE_F32);
    pointers_[index] = &p;
  }

  const dtb_host_t* host_;
  uint32_t classes_;
  uint32_t inputs_ = 1;
  std::vector<float> weight_, weightGrad_, bias_, biasGrad_;
  dtb_param_t params_[2]{};
  dtb_param_t* pointers_[2]{};
  std::vector<float> input_, probabilities_;
  std::vector<int32_t> labels_;
};

}  // namespace

DTB_EXPORT_MODEL_PLUGIN(dtb::modelDescriptor<MyPlugin>("my_plugin", "0.1.0",
                                                       "Softmax regression (dtbench new's starting point)"))
