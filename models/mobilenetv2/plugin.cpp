// The mobilenetv2 model plugin: the C ABI over MobileNetV2.
#include "cuda_layer_params.h"
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
    nn::kCudnnBenchmarkParam,
    nn::kAllowTf32Param,
};

const dtb_model_plugin_v1_t kDescriptor = modelDescriptor<MobileNetV2>(
    {sizeof(dtb_model_plugin_v1_t), DTB_ABI_VERSION, DTB_PLUGIN_MODEL, "mobilenetv2", "0.1.0",
     "MobileNetV2 as in torchvision (3.5 M parameters at width 1), on oneDNN or cuDNN", kParams, 4});

}  // namespace
}  // namespace dtb::model::mobilenetv2

extern "C" const dtb_model_plugin_v1_t* dtb_model_plugin_v1(void) {
  return &dtb::model::mobilenetv2::kDescriptor;
}
