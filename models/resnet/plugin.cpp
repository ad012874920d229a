// The resnet model plugin: the C ABI over ResNet.
#include "dtbench/descriptors.hpp"
#include "network_params.h"
#include "resnet.h"

namespace dtb::model::resnet {
namespace {

const dtb_param_spec_t kParams[] = {
    kDepth.spec(),
    nn::kStem.spec(),
    nn::kCudnnBenchmark.spec(),
    nn::kAllowTf32.spec(),
    nn::kWaitForGradients.spec(),
};

}  // namespace

DTB_EXPORT_MODEL_PLUGIN(modelDescriptor<ResNet>(
    "resnet", "0.1.0",
    "ResNet-18/34/50/101/152 as in torchvision, CIFAR or ImageNet stem, on oneDNN or cuDNN", kParams))

}  // namespace dtb::model::resnet
