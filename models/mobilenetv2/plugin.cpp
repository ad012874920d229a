// The mobilenetv2 model plugin: the C ABI over MobileNetV2.
#include "dtbench/descriptors.hpp"
#include "mobilenetv2.h"
#include "network_params.h"

namespace dtb::model::mobilenetv2 {
namespace {

const dtb_param_spec_t kParams[] = {
    kWidth.spec(),
    nn::kStem.spec(),
    nn::kCudnnBenchmark.spec(),
    nn::kAllowTf32.spec(),
    nn::kWaitForGradients.spec(),
};

}  // namespace

DTB_EXPORT_MODEL_PLUGIN(modelDescriptor<MobileNetV2>(
    "mobilenetv2", "0.1.0", "MobileNetV2 as in torchvision (3.5 M parameters at width 1), on oneDNN or cuDNN",
    kParams))

}  // namespace dtb::model::mobilenetv2
