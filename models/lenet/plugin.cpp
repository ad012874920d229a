// The lenet model plugin: the C ABI over LeNet.
#include "dtbench/descriptors.hpp"
#include "lenet.h"
#include "network_params.h"

namespace dtb::model::lenet {
namespace {

const dtb_param_spec_t kParams[] = {kDropout.spec(), nn::kCudnnBenchmark.spec(), nn::kAllowTf32.spec(),
                                    nn::kWaitForGradients.spec()};

}  // namespace

DTB_EXPORT_MODEL_PLUGIN(modelDescriptor<LeNet>(
    "lenet", "0.1.0", "LeNet of PyTorch's MNIST example (21,840 parameters), on oneDNN or cuDNN", kParams))

}  // namespace dtb::model::lenet
