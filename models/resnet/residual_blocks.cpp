#include "residual_blocks.h"

#include "sequential.h"

namespace dtb::model::resnet {
namespace {

// Convolution (no bias) then batch norm, named conv<i> and bn<i>.
void convBn(nn::Sequential& seq, nn::Layers& layers, nn::ParameterRegistry& registry, const std::string& name,
            int index, const nn::Conv2dSpec& spec) {
  const std::string i = std::to_string(index);
  seq.add(layers.conv(registry, name + ".conv" + i, spec));
  seq.add(layers.batchNorm(registry, name + ".bn" + i, spec.out));
}

std::unique_ptr<nn::Module> downsample(nn::Layers& layers, nn::ParameterRegistry& registry,
                                       const std::string& name, int64_t in, int64_t out, int64_t stride) {
  if (stride == 1 && in == out) return nullptr;
  auto seq = std::make_unique<nn::Sequential>();
  seq->add(layers.conv(registry, name + ".downsample.0", nn::Conv2dSpec{in, out, 1, stride, 0}));
  seq->add(layers.batchNorm(registry, name + ".downsample.1", out));
  return seq;
}

}  // namespace

std::unique_ptr<nn::Module> basicBlock(nn::Layers& layers, nn::ParameterRegistry& registry,
                                       const std::string& name, int64_t in, int64_t planes, int64_t stride) {
  auto main = std::make_unique<nn::Sequential>();
  convBn(*main, layers, registry, name, 1, {in, planes, 3, stride, 1});
  main->add(layers.relu());
  convBn(*main, layers, registry, name, 2, {planes, planes, 3, 1, 1});
  auto shortcut = downsample(layers, registry, name, in, planes, stride);
  return layers.residual(std::move(main), std::move(shortcut), true);
}

std::unique_ptr<nn::Module> bottleneck(nn::Layers& layers, nn::ParameterRegistry& registry,
                                       const std::string& name, int64_t in, int64_t planes, int64_t stride) {
  auto main = std::make_unique<nn::Sequential>();
  convBn(*main, layers, registry, name, 1, {in, planes, 1, 1, 0});
  main->add(layers.relu());
  convBn(*main, layers, registry, name, 2, {planes, planes, 3, stride, 1});
  main->add(layers.relu());
  convBn(*main, layers, registry, name, 3, {planes, planes * 4, 1, 1, 0});
  auto shortcut = downsample(layers, registry, name, in, planes * 4, stride);
  return layers.residual(std::move(main), std::move(shortcut), true);
}

}  // namespace dtb::model::resnet
