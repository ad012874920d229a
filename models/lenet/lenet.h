// LeNet as in PyTorch's MNIST example (21,840 parameters):
//   conv1 1->10 5x5, max-pool 2, relu
//   conv2 10->20 5x5, dropout2d, max-pool 2, relu
//   fc1 320->50, relu, dropout
//   fc2 50->10, log-softmax + NLL (cross-entropy)
// Built from the layer library: oneDNN on the host, cuDNN and cuBLAS with
// device = "cuda".
#pragma once

#include "dtbench/model.h"
#include "dtbench/settings.hpp"
#include "network.h"

namespace dtb::model::lenet {

// The plugin's parameter (plugin.cpp declares it, the constructor reads it).
inline constexpr FloatSetting kDropout{
    "dropout", "0.5", "Drop probability of conv2's Dropout2d and of the dropout after fc1 (0 turns both off)",
    between(0, 0.99)};

class LeNet : public nn::Network {
 public:
  LeNet(const dtb_host_t* host, const dtb_model_setup_t& setup);
};

}  // namespace dtb::model::lenet
