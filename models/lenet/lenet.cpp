#include "lenet.h"

#include <cmath>
#include <string>

#include "dtbench/plugin.hpp"
#include "elementwise.h"
#include "layers.h"
#include "loss.h"
#include "pooling.h"

namespace dtb::model::lenet {
namespace {

constexpr int64_t kClasses = 10;

}  // namespace

LeNet::LeNet(const dtb_host_t* host, const dtb_model_setup_t& setup)
    : host_(host), labelSmoothing_(setup.label_smoothing), rng_(setup.seed ^ 0x5eedULL) {
  nn::requireHost("lenet", setup.device);
  dropout_ = kDropout.get(host);
  if (setup.input_ndim != 3 || setup.input_shape[0] != 1 || setup.input_shape[1] != 28 ||
      setup.input_shape[2] != 28) {
    throw Error(DTB_STATUS_INVALID_ARGUMENT, "lenet expects 1x28x28 samples (MNIST, Fashion-MNIST)");
  }
  if (setup.num_classes != kClasses) {
    throw Error(DTB_STATUS_INVALID_ARGUMENT,
                "lenet has 10 outputs; the dataset has " + std::to_string(setup.num_classes) + " classes");
  }
  auto add = [&](const char* name, std::vector<int64_t> shape, uint32_t layer) -> nn::Parameter& {
    params_.push_back(std::make_unique<nn::Parameter>(name, std::move(shape),
                                                      static_cast<uint32_t>(params_.size()), layer));
    views_.push_back(params_.back()->view());
    return *params_.back();
  };
  nn::Parameter& c1w = add("conv1.weight", {10, 1, 5, 5}, 0);
  nn::Parameter& c1b = add("conv1.bias", {10}, 0);
  nn::Parameter& c2w = add("conv2.weight", {20, 10, 5, 5}, 1);
  nn::Parameter& c2b = add("conv2.bias", {20}, 1);
  nn::Parameter& f1w = add("fc1.weight", {50, 320}, 2);
  nn::Parameter& f1b = add("fc1.bias", {50}, 2);
  nn::Parameter& f2w = add("fc2.weight", {10, 50}, 3);
  nn::Parameter& f2b = add("fc2.bias", {10}, 3);
  f1b.view()->flags = f2b.view()->flags = c1b.view()->flags = c2b.view()->flags =
      DTB_PARAM_FLAG_NO_WEIGHT_DECAY;
  // PyTorch's default initialisation: U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
  const double fanIn[] = {25, 25, 250, 250, 320, 320, 50, 50};
  for (size_t i = 0; i < params_.size(); ++i)
    params_[i]->initUniform(1.0 / std::sqrt(fanIn[i]), setup.seed * 1000 + i);

  conv1_ = std::make_unique<nn::Conv2d>(dnnl_, 1, 10, 5, 0, c1w, c1b);
  conv2_ = std::make_unique<nn::Conv2d>(dnnl_, 10, 20, 5, 0, c2w, c2b);
  fc1_ = std::make_unique<nn::LinearLayer>(dnnl_, 320, 50, f1w, f1b);
  fc2_ = std::make_unique<nn::LinearLayer>(dnnl_, 50, 10, f2w, f2b);
}

void LeNet::hook(const dtb_step_hooks_t* hooks, uint32_t layer, dtb_pass_t pass) {
  if (hooks && hooks->layer_begin) check(hooks->layer_begin(hooks->user, layer, pass), "layer_begin");
}

void LeNet::ready(const dtb_step_hooks_t* hooks, nn::Parameter& p) {
  if (hooks && hooks->grad_ready) check(hooks->grad_ready(hooks->user, p.view()), "grad_ready");
}

void LeNet::forward(const dtb_batch_t& batch, const dtb_step_hooks_t* hooks, dtb_forward_result_t* out) {
  const int64_t n = batch.size;
  n_ = n;
  const auto* x = static_cast<const float*>(batch.inputs.data);
  input_.assign(x, x + n * 784);
  labels_.assign(static_cast<const int32_t*>(batch.labels.data),
                 static_cast<const int32_t*>(batch.labels.data) + n);
  for (auto* buffer : {&a1_, &p1_, &r1_, &a2_, &d2_, &p2_, &r2_, &a3_, &r3_, &d3_, &z_}) buffer->clear();
  a1_.resize(n * 10 * 24 * 24);
  p1_.resize(n * 10 * 12 * 12);
  r1_.resize(p1_.size());
  a2_.resize(n * 20 * 8 * 8);
  d2_.resize(a2_.size());
  p2_.resize(n * 320);
  r2_.resize(p2_.size());
  a3_.resize(n * 50);
  r3_.resize(a3_.size());
  d3_.resize(a3_.size());
  z_.resize(n * kClasses);
  const double p = training_ ? dropout_ : 0.0;

  hook(hooks, 0, DTB_PASS_FORWARD);
  conv1_->forward(input_.data(), n, 28, 28, a1_.data());
  nn::maxPoolForward(a1_.data(), n, 10, 24, 24, {2, 2, 0}, p1_.data(), pool1_);
  nn::reluForward(p1_.data(), r1_.data(), r1_.size());
  hook(hooks, 1, DTB_PASS_FORWARD);
  conv2_->forward(r1_.data(), n, 12, 12, a2_.data());
  nn::dropoutForward(a2_.data(), d2_.data(), d2_.size(), p, 8 * 8, rng_, mask2_);
  nn::maxPoolForward(d2_.data(), n, 20, 8, 8, {2, 2, 0}, p2_.data(), pool2_);
  nn::reluForward(p2_.data(), r2_.data(), r2_.size());
  hook(hooks, 2, DTB_PASS_FORWARD);
  fc1_->forward(r2_.data(), n, a3_.data());
  nn::reluForward(a3_.data(), r3_.data(), r3_.size());
  nn::dropoutForward(r3_.data(), d3_.data(), d3_.size(), p, 1, rng_, mask3_);
  hook(hooks, 3, DTB_PASS_FORWARD);
  fc2_->forward(d3_.data(), n, z_.data());
  const nn::LossResult loss =
      nn::crossEntropyForward(z_.data(), labels_.data(), n, kClasses, labelSmoothing_, probabilities_);
  out->loss = loss.loss;
  out->correct = loss.correct;
}

void LeNet::backward(const dtb_step_hooks_t* hooks) {
  const int64_t n = n_;
  std::vector<float> dz(n * kClasses), dd3(n * 50), da3(n * 50), dr2(n * 320), dd2(n * 20 * 64),
      da2(n * 20 * 64), dr1(n * 10 * 144), da1(n * 10 * 576);
  nn::crossEntropyBackward(probabilities_, labels_.data(), n, kClasses, labelSmoothing_, dz.data());
  // Reverse layer order; a layer's bias and weight are final after its backward.
  hook(hooks, 3, DTB_PASS_BACKWARD);
  fc2_->backward(d3_.data(), dz.data(), n, dd3.data());
  ready(hooks, *params_[7]);
  ready(hooks, *params_[6]);
  hook(hooks, 2, DTB_PASS_BACKWARD);
  nn::dropoutBackward(dd3.data(), mask3_, dd3.data(), dd3.size());
  nn::reluBackward(r3_.data(), dd3.data(), da3.data(), da3.size());
  fc1_->backward(r2_.data(), da3.data(), n, dr2.data());
  ready(hooks, *params_[5]);
  ready(hooks, *params_[4]);
  hook(hooks, 1, DTB_PASS_BACKWARD);
  nn::reluBackward(r2_.data(), dr2.data(), dr2.data(), dr2.size());
  nn::maxPoolBackward(dr2.data(), pool2_, dd2.data(), dd2.size());
  nn::dropoutBackward(dd2.data(), mask2_, da2.data(), da2.size());
  conv2_->backward(r1_.data(), da2.data(), n, 12, 12, dr1.data());
  ready(hooks, *params_[3]);
  ready(hooks, *params_[2]);
  hook(hooks, 0, DTB_PASS_BACKWARD);
  nn::reluBackward(r1_.data(), dr1.data(), dr1.data(), dr1.size());
  nn::maxPoolBackward(dr1.data(), pool1_, da1.data(), da1.size());
  conv1_->backward(input_.data(), da1.data(), n, 28, 28, nullptr);
  ready(hooks, *params_[1]);
  ready(hooks, *params_[0]);
}

}  // namespace dtb::model::lenet
