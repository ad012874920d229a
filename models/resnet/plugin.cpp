// The resnet model plugin: the C ABI over ResNet.
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
    {sizeof(dtb_param_spec_t), "cudnn_benchmark", DTB_PARAM_BOOL, "false",
     "On a GPU: time every cuDNN convolution algorithm once per input shape and keep the fastest "
     "(torch.backends.cudnn.benchmark); else cuDNN's heuristics choose",
     0, 0, 0, nullptr},
    {sizeof(dtb_param_spec_t), "allow_tf32", DTB_PARAM_BOOL, "true",
     "On a GPU: fp32 convolutions may run on tensor cores in TF32 (torch.backends.cudnn.allow_tf32, on by "
     "default in PyTorch); fully connected layers stay full fp32 as PyTorch's matmul default",
     0, 0, 0, nullptr},
};

const dtb_model_plugin_v1_t kDescriptor = modelDescriptor<ResNet>(
    {sizeof(dtb_model_plugin_v1_t), DTB_ABI_VERSION, DTB_PLUGIN_MODEL, "resnet", "0.1.0",
     "ResNet-18/34/50/101/152 as in torchvision, CIFAR or ImageNet stem, on oneDNN or cuDNN", kParams, 4});

}  // namespace
}  // namespace dtb::model::resnet

extern "C" const dtb_model_plugin_v1_t* dtb_model_plugin_v1(void) { return &dtb::model::resnet::kDescriptor; }
