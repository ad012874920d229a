// A multilayer perceptron over the flattened sample: for each width w in
// `widths`, a fully connected layer to w units, ReLU and (optional) dropout;
// then a fully connected layer to the classes and cross-entropy. The MLP of
// the seed studies' tabular experiments; built from the layer library, so
// it computes on oneDNN or, with device = "cuda", on cuBLAS.
#pragma once

#include "dtbench/model.h"
#include "dtbench/settings.hpp"
#include "network.h"

namespace dtb::model::mlp {

// The plugin's parameters (plugin.cpp declares them, the constructor reads them).
inline constexpr Setting<DTB_PARAM_INT_LIST> kWidths{"widths", "[512, 256]",
                                                     "Units of each hidden layer, in order", atLeast(1)};
inline constexpr FloatSetting kDropout{"dropout", "0.0", "Drop probability after each hidden layer",
                                       between(0, 0.99)};

class Mlp : public nn::Network {
 public:
  Mlp(const dtb_host_t* host, const dtb_model_setup_t& setup);
};

}  // namespace dtb::model::mlp
