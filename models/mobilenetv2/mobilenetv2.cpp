#include "mobilenetv2.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "dtbench/plugin.hpp"
#include "layers.h"

namespace dtb::model::mobilenetv2 {
namespace {

struct Stage {
  int64_t expansion, channels, repeats, stride;
};

constexpr Stage kStages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                             {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};

// torchvision's _make_divisible: the nearest multiple of 8, never more than
// 10% below the exact value.
int64_t divisible(double value) {
  int64_t rounded = std::max<int64_t>(8, static_cast<int64_t>(value + 4) / 8 * 8);
  if (static_cast<double>(rounded) < 0.9 * value) rounded += 8;
  return rounded;
}

// Convolution, batch norm and (unless `linear`) ReLU6, named <name>.0 and .1
// as torchvision's Conv2dNormActivation.
void convBnRelu(nn::Sequential& seq, nn::Layers& layers, nn::ParameterRegistry& registry,
                const std::string& name, const nn::Conv2dSpec& spec, bool linear = false) {
  seq.add(layers.conv(registry, name + ".0", spec));
  seq.add(layers.batchNorm(registry, name + ".1", spec.out));
  if (!linear) seq.add(layers.relu(true));
}

std::unique_ptr<nn::Module> invertedResidual(nn::Layers& layers, nn::ParameterRegistry& registry,
                                             const std::string& name, int64_t in, int64_t out, int64_t stride,
                                             int64_t expansion) {
  const int64_t hidden = static_cast<int64_t>(std::lround(static_cast<double>(in * expansion)));
  auto main = std::make_unique<nn::Sequential>();
  int part = 0;
  const auto next = [&] { return name + ".conv." + std::to_string(part++); };
  if (expansion != 1) convBnRelu(*main, layers, registry, next(), {in, hidden, 1, 1, 0});
  convBnRelu(*main, layers, registry, next(), {hidden, hidden, 3, stride, 1, hidden});  // depthwise
  // The linear bottleneck: a 1x1 projection and batch norm, no activation.
  main->add(layers.conv(registry, next(), nn::Conv2dSpec{hidden, out, 1, 1, 0}));
  main->add(layers.batchNorm(registry, next(), out));
  if (stride == 1 && in == out) return layers.residual(std::move(main), nullptr, false);
  return main;
}

}  // namespace

MobileNetV2::MobileNetV2(const dtb_host_t* host, const dtb_model_setup_t& setup) : Network(host, setup) {
  const double width = kWidth.get(host);
  const bool cifar = cifarStem();

  auto& r = registry();
  auto& l = layers();
  int64_t in = divisible(32 * width);
  const int64_t last = divisible(1280 * std::max(1.0, width));
  convBnRelu(body(), l, r, "features.0", {sampleShape().c, in, 3, cifar ? 1 : 2, 1});
  int feature = 1;
  for (const Stage& stage : kStages) {
    const int64_t out = divisible(static_cast<double>(stage.channels) * width);
    const int64_t firstStride = cifar && stage.channels == 24 ? 1 : stage.stride;
    for (int64_t i = 0; i < stage.repeats; ++i) {
      body().add(invertedResidual(l, r, "features." + std::to_string(feature++), in, out,
                                  i == 0 ? firstStride : 1, stage.expansion));
      in = out;
    }
  }
  convBnRelu(body(), l, r, "features." + std::to_string(feature), {in, last, 1, 1, 0});
  body().add(l.globalAvgPool());
  body().add(l.dropout({0.2, setup.seed ^ 0xd20bULL}));
  body().add(l.linear(r, "classifier.1", last, classes()));
  // torchvision: classifier weights N(0, 0.01), bias 0.
  nn::Parameter& weight = r.param(r.paramCount() - 2);
  weight.initNormal(0.01, r.seedFor(weight));
  r.param(r.paramCount() - 1).fill(0.0f);
  finishBuilding("mobilenetv2");
}

}  // namespace dtb::model::mobilenetv2
