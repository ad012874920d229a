// LeNet as in PyTorch's MNIST example (21,840 parameters):
//   conv1 1->10 5x5, max-pool 2, relu
//   conv2 10->20 5x5, dropout2d, max-pool 2, relu
//   fc1 320->50, relu, dropout
//   fc2 50->10, log-softmax + NLL (cross-entropy)
// Convolutions and fully connected layers run on oneDNN.
#pragma once

#include <memory>
#include <random>
#include <vector>

#include "conv2d.h"
#include "dtbench/model.h"
#include "dtbench/settings.hpp"
#include "linear_layer.h"
#include "parameter.h"

namespace dtb::model::lenet {

// The plugin's parameter (plugin.cpp declares it, the constructor reads it).
inline constexpr FloatSetting kDropout{
    "dropout", "0.5", "Drop probability of conv2's Dropout2d and of the dropout after fc1 (0 turns both off)",
    between(0, 0.99)};

class LeNet {
 public:
  static constexpr const char* kLayerNames[] = {"conv1", "conv2", "fc1", "fc2"};

  LeNet(const dtb_host_t* host, const dtb_model_setup_t& setup);

  const dtb_host_t* host() const { return host_; }
  dtb_param_t* const* params() const { return views_.data(); }
  uint32_t paramCount() const { return static_cast<uint32_t>(views_.size()); }
  const char* const* layerNames() const { return kLayerNames; }
  uint32_t layerCount() const { return 4; }
  void releaseParam(uint32_t index, dtb_param_part_t part) { nn::releaseParam(params_, index, part); }
  void setTraining(bool training) { training_ = training; }
  void forward(const dtb_batch_t& batch, const dtb_step_hooks_t* hooks, dtb_forward_result_t* out);
  void backward(const dtb_step_hooks_t* hooks);

 private:
  void hook(const dtb_step_hooks_t* hooks, uint32_t layer, dtb_pass_t pass);
  void ready(const dtb_step_hooks_t* hooks, nn::Parameter& p);

  const dtb_host_t* host_;
  double dropout_;
  double labelSmoothing_;
  bool training_ = true;
  nn::DnnlContext dnnl_;
  std::vector<std::unique_ptr<nn::Parameter>> params_;
  std::vector<dtb_param_t*> views_;
  std::unique_ptr<nn::Conv2d> conv1_, conv2_;
  std::unique_ptr<nn::LinearLayer> fc1_, fc2_;
  std::mt19937_64 rng_;

  // Activations of the last forward, for backward (sized for max_batch).
  int64_t n_ = 0;
  std::vector<float> input_, a1_, p1_, r1_, a2_, d2_, p2_, r2_, a3_, r3_, d3_, z_, probabilities_;
  std::vector<uint32_t> pool1_, pool2_;
  std::vector<float> mask2_, mask3_;
  std::vector<int32_t> labels_;
};

}  // namespace dtb::model::lenet
