// The lenet model plugin: the C ABI over LeNet.
#include "dtbench/descriptors.hpp"
#include "lenet.h"

namespace dtb::model::lenet {
namespace {

const dtb_param_spec_t kParams[] = {
    {sizeof(dtb_param_spec_t), "dropout", DTB_PARAM_FLOAT, "0.5",
     "Drop probability of conv2's Dropout2d and of the dropout after fc1 (0 turns both off)",
     DTB_PARAM_HAS_MIN | DTB_PARAM_HAS_MAX, 0, 0.99, nullptr},
};

const dtb_model_plugin_v1_t kDescriptor = modelDescriptor<LeNet>(
    {sizeof(dtb_model_plugin_v1_t), DTB_ABI_VERSION, DTB_PLUGIN_MODEL, "lenet", "0.1.0",
     "LeNet of PyTorch's MNIST example (21,840 parameters), on oneDNN", kParams, 1});

}  // namespace
}  // namespace dtb::model::lenet

extern "C" const dtb_model_plugin_v1_t* dtb_model_plugin_v1(void) { return &dtb::model::lenet::kDescriptor; }
