// The resnet model plugin: the C ABI over ResNet.
#include "cuda_layer_params.h"
#include "dtbench/descriptors.hpp"
#include "resnet.h"

namespace dtb::model::resnet {
namespace {

const dtb_param_spec_t kParams[] = {
    {sizeof(dtb_param_spec_t), "depth", DTB_PARAM_INT, "18",
     "Number of weighted layers: 18, 34, 50, 101 or 152", DTB_PARAM_HAS_MIN | DTB_PARAM_HAS_MAX, 18, 152,
     nullptr},
    {sizeof(dtb_param_spec_t), "stem", DTB_PARAM_STRING, "auto",
     "First layers: imagenet (7x7/2 convolution, 3x3/2 max pool), cifar (3x3/1 convolution), auto (cifar for "
     "samples up to 64 pixels high)",
     0, 0, 0, "auto|cifar|imagenet"},
    nn::kCudnnBenchmarkParam,
    nn::kAllowTf32Param,
};

const dtb_model_plugin_v1_t kDescriptor = modelDescriptor<ResNet>(
    {sizeof(dtb_model_plugin_v1_t), DTB_ABI_VERSION, DTB_PLUGIN_MODEL, "resnet", "0.1.0",
     "ResNet-18/34/50/101/152 as in torchvision, CIFAR or ImageNet stem, on oneDNN or cuDNN", kParams, 4});

}  // namespace
}  // namespace dtb::model::resnet

extern "C" const dtb_model_plugin_v1_t* dtb_model_plugin_v1(void) { return &dtb::model::resnet::kDescriptor; }
