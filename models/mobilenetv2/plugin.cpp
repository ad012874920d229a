// The mobilenetv2 model plugin: the C ABI over MobileNetV2.
#include "dtbench/descriptors.hpp"
#include "mobilenetv2.h"

namespace dtb::model::mobilenetv2 {
namespace {

const dtb_param_spec_t kParams[] = {
    {sizeof(dtb_param_spec_t), "width", DTB_PARAM_FLOAT, "1.0",
     "Width multiplier: every layer's channels scaled by it, rounded to a multiple of 8",
     DTB_PARAM_HAS_MIN | DTB_PARAM_HAS_MAX, 0.1, 4.0, nullptr},
    {sizeof(dtb_param_spec_t), "stem", DTB_PARAM_STRING, "auto",
     "imagenet (stride 2 in the first convolution and the 24-channel stage), cifar (stride 1 in both), auto "
     "(cifar for samples up to 64 pixels high)",
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

const dtb_model_plugin_v1_t kDescriptor = modelDescriptor<MobileNetV2>(
    {sizeof(dtb_model_plugin_v1_t), DTB_ABI_VERSION, DTB_PLUGIN_MODEL, "mobilenetv2", "0.1.0",
     "MobileNetV2 as in torchvision (3.5 M parameters at width 1), on oneDNN or cuDNN", kParams, 4});

}  // namespace
}  // namespace dtb::model::mobilenetv2

extern "C" const dtb_model_plugin_v1_t* dtb_model_plugin_v1(void) {
  return &dtb::model::mobilenetv2::kDescriptor;
}
