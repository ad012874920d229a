// The mlp model plugin: the C ABI over Mlp.
#include "dtbench/descriptors.hpp"
#include "mlp.h"

namespace dtb::model::mlp {
namespace {

const dtb_param_spec_t kParams[] = {
    {sizeof(dtb_param_spec_t), "widths", DTB_PARAM_INT_LIST, "[512, 256]",
     "Units of each hidden layer, in order", DTB_PARAM_HAS_MIN, 1, 0, nullptr},
    {sizeof(dtb_param_spec_t), "dropout", DTB_PARAM_FLOAT, "0.0", "Drop probability after each hidden layer",
     DTB_PARAM_HAS_MIN | DTB_PARAM_HAS_MAX, 0, 0.99, nullptr},
};

const dtb_model_plugin_v1_t kDescriptor =
    modelDescriptor<Mlp>({sizeof(dtb_model_plugin_v1_t), DTB_ABI_VERSION, DTB_PLUGIN_MODEL, "mlp", "0.1.0",
                          "Multilayer perceptron (fully connected + ReLU), on oneDNN", kParams, 2});

}  // namespace
}  // namespace dtb::model::mlp

extern "C" const dtb_model_plugin_v1_t* dtb_model_plugin_v1(void) { return &dtb::model::mlp::kDescriptor; }
