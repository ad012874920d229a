#include "mlp.h"

#include <cmath>

#include "dtbench/plugin.hpp"
#include "elementwise.h"
#include "layers.h"
#include "loss.h"

namespace dtb::model::mlp {

Mlp::Mlp(const dtb_host_t* host, const dtb_model_setup_t& setup)
    : host_(host), labelSmoothing_(setup.label_smoothing), rng_(setup.seed ^ 0x31bULL) {
  nn::requireHost("mlp", setup.device);
  int64_t widths[32];
  uint64_t depth = 0;
  check(host->config_get_int_list(host->ctx, kWidths.name(), widths, 32, &depth), kWidths.name());
  dropout_ = kDropout.get(host);
  if (depth > 32) throw Error(DTB_STATUS_INVALID_ARGUMENT, "mlp: at most 32 hidden layers");
  for (int d = 0; d < setup.input_ndim; ++d) inputs_ *= setup.input_shape[d];
  sizes_.push_back(inputs_);
  for (uint64_t i = 0; i < depth; ++i) sizes_.push_back(widths[i]);
  sizes_.push_back(setup.num_classes);
  const size_t layers = sizes_.size() - 1;
  for (size_t l = 0; l < layers; ++l) {
    const std::string prefix = "layers." + std::to_string(l);
    const uint32_t index = static_cast<uint32_t>(params_.size());
    params_.push_back(std::make_unique<nn::Parameter>(
        prefix + ".weight", std::vector<int64_t>{sizes_[l + 1], sizes_[l]}, index, static_cast<uint32_t>(l)));
    params_.push_back(std::make_unique<nn::Parameter>(prefix + ".bias", std::vector<int64_t>{sizes_[l + 1]},
                                                      index + 1, static_cast<uint32_t>(l)));
    params_.back()->view()->flags = DTB_PARAM_FLAG_NO_WEIGHT_DECAY;
    const double bound = 1.0 / std::sqrt(static_cast<double>(sizes_[l]));  // PyTorch's Linear default
    params_[index]->initUniform(bound, setup.seed * 1000 + index);
    params_[index + 1]->initUniform(bound, setup.seed * 1000 + index + 1);
    layers_.push_back(std::make_unique<nn::LinearLayer>(dnnl_, sizes_[l], sizes_[l + 1], *params_[index],
                                                        *params_[index + 1]));
    layerNameStorage_.push_back(prefix);
  }
  for (auto& p : params_) views_.push_back(p->view());
  for (const std::string& name : layerNameStorage_) layerNames_.push_back(name.c_str());
  x_.resize(layers);
  pre_.resize(layers);
  post_.resize(layers);
  mask_.resize(layers);
}

void Mlp::forward(const dtb_batch_t& batch, const dtb_step_hooks_t* hooks, dtb_forward_result_t* out) {
  const int64_t n = batch.size;
  n_ = n;
  const auto* input = static_cast<const float*>(batch.inputs.data);
  labels_.assign(static_cast<const int32_t*>(batch.labels.data),
                 static_cast<const int32_t*>(batch.labels.data) + n);
  x_[0].assign(input, input + n * inputs_);
  const size_t layers = layers_.size();
  for (size_t l = 0; l < layers; ++l) {
    if (hooks && hooks->layer_begin)
      check(hooks->layer_begin(hooks->user, static_cast<uint32_t>(l), DTB_PASS_FORWARD), "layer_begin");
    pre_[l].resize(n * sizes_[l + 1]);
    layers_[l]->forward(x_[l].data(), n, pre_[l].data());
    if (l + 1 == layers) break;
    post_[l].resize(pre_[l].size());
    nn::reluForward(pre_[l].data(), post_[l].data(), post_[l].size());
    x_[l + 1].resize(post_[l].size());
    nn::dropoutForward(post_[l].data(), x_[l + 1].data(), post_[l].size(), training_ ? dropout_ : 0.0, 1,
                       rng_, mask_[l]);
  }
  const nn::LossResult loss = nn::crossEntropyForward(pre_[layers - 1].data(), labels_.data(), n,
                                                      sizes_.back(), labelSmoothing_, probabilities_);
  out->loss = loss.loss;
  out->correct = loss.correct;
}

void Mlp::backward(const dtb_step_hooks_t* hooks) {
  const int64_t n = n_;
  const size_t layers = layers_.size();
  std::vector<float> dy(n * sizes_.back());
  nn::crossEntropyBackward(probabilities_, labels_.data(), n, sizes_.back(), labelSmoothing_, dy.data());
  for (size_t l = layers; l-- > 0;) {
    if (hooks && hooks->layer_begin)
      check(hooks->layer_begin(hooks->user, static_cast<uint32_t>(l), DTB_PASS_BACKWARD), "layer_begin");
    std::vector<float> dx(l > 0 ? n * sizes_[l] : 0);
    layers_[l]->backward(x_[l].data(), dy.data(), n, l > 0 ? dx.data() : nullptr);
    // Bias, then weight: reverse registration order, as autograd finishes them.
    for (int k : {1, 0}) {
      if (hooks && hooks->grad_ready)
        check(hooks->grad_ready(hooks->user, params_[2 * l + k]->view()), "grad_ready");
    }
    if (l == 0) break;
    nn::dropoutBackward(dx.data(), mask_[l - 1], dx.data(), dx.size());
    nn::reluBackward(post_[l - 1].data(), dx.data(), dx.data(), dx.size());
    dy = std::move(dx);
  }
}

}  // namespace dtb::model::mlp
