#include "resnet.h"

#include <string>

#include "dtbench/plugin.hpp"
#include "residual_blocks.h"

namespace dtb::model::resnet {
namespace {

struct Architecture {
  int64_t depth;
  int blocks[4];
  bool bottleneck;
};

constexpr Architecture kArchitectures[] = {
    {18, {2, 2, 2, 2}, false},  {34, {3, 4, 6, 3}, false},  {50, {3, 4, 6, 3}, true},
    {101, {3, 4, 23, 3}, true}, {152, {3, 8, 36, 3}, true},
};

const Architecture& architecture(int64_t depth) {
  for (const Architecture& a : kArchitectures) {
    if (a.depth == depth) return a;
  }
  throw Error(DTB_STATUS_INVALID_ARGUMENT,
              "resnet: depth must be 18, 34, 50, 101 or 152; got " + std::to_string(depth));
}

}  // namespace

ResNet::ResNet(const dtb_host_t* host, const dtb_model_setup_t& setup) : Network(host, setup) {
  const Architecture& arch = architecture(kDepth.get(host));
  const bool cifar = cifarStem();

  auto& r = registry();
  auto& l = layers();
  const int64_t channels = sampleShape().c;
  if (cifar) {
    body().add(l.conv(r, "conv1", nn::Conv2dSpec{channels, 64, 3, 1, 1}));
  } else {
    body().add(l.conv(r, "conv1", nn::Conv2dSpec{channels, 64, 7, 2, 3}));
  }
  body().add(l.batchNorm(r, "bn1", 64));
  body().add(l.relu());
  if (!cifar) body().add(l.maxPool(nn::PoolSpec{3, 2, 1}));

  const int64_t expansion = arch.bottleneck ? 4 : 1;
  int64_t in = 64;
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t planes = int64_t{64} << stage;
    for (int b = 0; b < arch.blocks[stage]; ++b) {
      const std::string name = "layer" + std::to_string(stage + 1) + "." + std::to_string(b);
      const int64_t stride = b == 0 && stage > 0 ? 2 : 1;
      body().add(arch.bottleneck ? bottleneck(l, r, name, in, planes, stride)
                                 : basicBlock(l, r, name, in, planes, stride));
      in = planes * expansion;
    }
  }
  body().add(l.globalAvgPool());
  body().add(l.linear(r, "fc", in, classes()));
  finishBuilding("resnet");
}

}  // namespace dtb::model::resnet
