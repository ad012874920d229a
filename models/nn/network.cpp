#include "network.h"

#include <string>

#include "dtbench/plugin.hpp"
#include "loss.h"

namespace dtb::nn {

Network::Network(const dtb_host_t* host, const dtb_model_setup_t& setup)
    : host_(host),
      registry_(setup.seed),
      classes_(setup.num_classes),
      labelSmoothing_(setup.label_smoothing) {
  if (setup.input_ndim != 3) {
    throw Error(DTB_STATUS_INVALID_ARGUMENT, "expects image samples [channels, height, width]; got " +
                                                 std::to_string(setup.input_ndim) + " dimensions");
  }
  sample_ = {1, setup.input_shape[0], setup.input_shape[1], setup.input_shape[2]};
}

bool Network::cifarStem() const {
  const char* stem = nullptr;
  check(host_->config_get_string(host_->ctx, "stem", &stem), "stem");
  const std::string name = stem;
  return name == "cifar" || (name == "auto" && sample_.h <= 64);
}

void Network::checkOutputShape(const char* model) const {
  const Shape out = body_.outputShape(sample_);
  if (out.c != static_cast<int64_t>(classes_) || out.h != 1 || out.w != 1) {
    throw Error(DTB_STATUS_INVALID_ARGUMENT, std::string(model) + ": samples of " +
                                                 std::to_string(sample_.c) + "x" + std::to_string(sample_.h) +
                                                 "x" + std::to_string(sample_.w) +
                                                 " are too small for this network");
  }
}

void Network::forward(const dtb_batch_t& batch, const dtb_step_hooks_t* hooks, dtb_forward_result_t* out) {
  n_ = batch.size;
  Shape in = sample_;
  in.n = n_;
  const auto* x = static_cast<const float*>(batch.inputs.data);
  input_.assign(x, x + in.count());  // the batch is borrowed for this call only
  const auto* labels = static_cast<const int32_t*>(batch.labels.data);
  labels_.assign(labels, labels + n_);
  const float* logits = body_.forward(input_.data(), in, Pass(hooks, training_));
  const LossResult loss =
      crossEntropyForward(logits, labels_.data(), n_, classes_, labelSmoothing_, probabilities_);
  out->loss = loss.loss;
  out->correct = loss.correct;
}

void Network::backward(const dtb_step_hooks_t* hooks) {
  std::vector<float> dlogits(static_cast<size_t>(n_) * classes_);
  crossEntropyBackward(probabilities_, labels_.data(), n_, classes_, labelSmoothing_, dlogits.data());
  body_.backward(dlogits.data(), Pass(hooks, training_), false);
}

}  // namespace dtb::nn
