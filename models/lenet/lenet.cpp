#include "lenet.h"

#include <cmath>
#include <string>

#include "dtbench/plugin.hpp"

namespace dtb::model::lenet {
namespace {

constexpr uint32_t kClasses = 10;

// The setup, once it is one LeNet takes: checked before anything is built
// (on a GPU, before a CUDA context is made for nothing).
const dtb_model_setup_t& lenetSetup(const dtb_model_setup_t& setup) {
  if (setup.input_ndim != 3 || setup.input_shape[0] != 1 || setup.input_shape[1] != 28 ||
      setup.input_shape[2] != 28) {
    throw Error(DTB_STATUS_INVALID_ARGUMENT, "lenet expects 1x28x28 samples (MNIST, Fashion-MNIST)");
  }
  if (setup.num_classes != kClasses) {
    throw Error(DTB_STATUS_INVALID_ARGUMENT,
                "lenet has 10 outputs; the dataset has " + std::to_string(setup.num_classes) + " classes");
  }
  return setup;
}

}  // namespace

LeNet::LeNet(const dtb_host_t* host, const dtb_model_setup_t& setup) : Network(host, lenetSetup(setup)) {
  const double dropout = kDropout.get(host);
  // Both dropouts draw from one stream, conv2's first, as F.dropout2d and
  // F.dropout do from torch's one generator.
  const uint64_t draws = setup.seed ^ 0x5eedULL;

  auto& r = registry();
  auto& l = layers();
  body().add(l.conv(r, "conv1", nn::Conv2dSpec{1, 10, 5}, /*bias=*/true));
  body().add(l.maxPool(nn::PoolSpec{2, 2, 0}));
  body().add(l.relu());
  body().add(l.conv(r, "conv2", nn::Conv2dSpec{10, 20, 5}, /*bias=*/true));
  if (dropout > 0) body().add(l.dropout({dropout, draws, /*perChannel=*/true}));
  body().add(l.maxPool(nn::PoolSpec{2, 2, 0}));
  body().add(l.relu());
  body().add(l.linear(r, "fc1", 320, 50));
  body().add(l.relu());
  if (dropout > 0) body().add(l.dropout({dropout, draws}));
  body().add(l.linear(r, "fc2", 50, kClasses));
  // PyTorch's default initialisation for every layer, convolutions too
  // (U(-1/sqrt(fan_in), 1/sqrt(fan_in)), not the library's Kaiming normal
  // for ResNets), seeded per parameter as lenet always was: its initial
  // weights, and so every figure taken with it, stay what they were.
  const double fanIn[] = {25, 25, 250, 250, 320, 320, 50, 50};
  for (uint32_t i = 0; i < paramCount(); ++i)
    r.param(i).initUniform(1.0 / std::sqrt(fanIn[i]), setup.seed * 1000 + i);
  finishBuilding("lenet");
}

}  // namespace dtb::model::lenet
