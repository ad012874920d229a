// A multilayer perceptron over the flattened sample: for each width w in
// `widths`, a fully connected layer to w units, ReLU and (optional) dropout;
// then a fully connected layer to the classes and cross-entropy. The MLP of
// the seed studies' tabular experiments; layers on oneDNN.
#pragma once

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dtbench/model.h"
#include "dtbench/settings.hpp"
#include "linear_layer.h"
#include "parameter.h"

namespace dtb::model::mlp {

// The plugin's parameters (plugin.cpp declares them, the constructor reads them).
inline constexpr Setting<DTB_PARAM_INT_LIST> kWidths{"widths", "[512, 256]",
                                                     "Units of each hidden layer, in order", atLeast(1)};
inline constexpr FloatSetting kDropout{"dropout", "0.0", "Drop probability after each hidden layer",
                                       between(0, 0.99)};

class Mlp {
 public:
  Mlp(const dtb_host_t* host, const dtb_model_setup_t& setup);

  const dtb_host_t* host() const { return host_; }
  dtb_param_t* const* params() const { return views_.data(); }
  uint32_t paramCount() const { return static_cast<uint32_t>(views_.size()); }
  const char* const* layerNames() const { return layerNames_.data(); }
  uint32_t layerCount() const { return static_cast<uint32_t>(layerNames_.size()); }
  void releaseParam(uint32_t index, dtb_param_part_t part) { nn::releaseParam(params_, index, part); }
  void setTraining(bool training) { training_ = training; }
  void forward(const dtb_batch_t& batch, const dtb_step_hooks_t* hooks, dtb_forward_result_t* out);
  void backward(const dtb_step_hooks_t* hooks);

 private:
  const dtb_host_t* host_;
  double dropout_ = 0;
  double labelSmoothing_;
  bool training_ = true;
  int64_t inputs_ = 1;
  std::vector<int64_t> sizes_;  // inputs, hidden widths..., classes
  nn::DnnlContext dnnl_;
  std::vector<std::unique_ptr<nn::Parameter>> params_;
  std::vector<dtb_param_t*> views_;
  std::vector<std::unique_ptr<nn::LinearLayer>> layers_;
  std::vector<std::string> layerNameStorage_;
  std::vector<const char*> layerNames_;
  std::mt19937_64 rng_;

  // Per layer l: its input x[l] (after the previous activation and dropout),
  // its output before ReLU pre[l], and the dropout mask of its activation.
  int64_t n_ = 0;
  std::vector<std::vector<float>> x_, pre_, post_, mask_;
  std::vector<float> probabilities_;
  std::vector<int32_t> labels_;
};

}  // namespace dtb::model::mlp
