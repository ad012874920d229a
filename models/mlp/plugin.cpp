// The mlp model plugin: the C ABI over Mlp.
#include "dtbench/descriptors.hpp"
#include "mlp.h"
#include "network_params.h"

namespace dtb::model::mlp {
namespace {

const dtb_param_spec_t kParams[] = {kWidths.spec(), kDropout.spec(), nn::kCudnnBenchmark.spec(),
                                    nn::kAllowTf32.spec(), nn::kWaitForGradients.spec()};

}  // namespace

DTB_EXPORT_MODEL_PLUGIN(modelDescriptor<Mlp>(
    "mlp", "0.1.0", "Multilayer perceptron (fully connected + ReLU), on oneDNN or cuBLAS", kParams))

}  // namespace dtb::model::mlp
