#include "residual_blocks.h"

#include "sequential.h"

namespace dtb::model::resnet {
namespace {

// Convolution (no bias) then batch norm, named conv<i> and bn<i>.
void convBn(nn::Sequential& seq, nn::ParameterRegistry& registry, nn::DnnlContext& ctx,
            const std::string& name, int index, const nn::Conv2dSpec& spec) {
  const std::string i = std::to_string(index);
  seq.emplace<nn::ConvModule>(registry, ctx, name + ".conv" + i, spec);
  seq.emplace<nn::BatchNormModule>(registry, name + ".bn" + i, spec.out);
}

std::unique_ptr<nn::Module> downsample(nn::ParameterRegistry& registry, nn::DnnlContext& ctx,
                                       const std::string& name, int64_t in, int64_t out, int64_t stride) {
  if (stride == 1 && in == out) return nullptr;
  auto seq = std::make_unique<nn::Sequential>();
  seq->emplace<nn::ConvModule>(registry, ctx, name + ".downsample.0", nn::Conv2dSpec{in, out, 1, stride, 0});
  seq->emplace<nn::BatchNormModule>(registry, name + ".downsample.1", out);
  return seq;
}

}  // namespace

std::unique_ptr<nn::Residual> basicBlock(nn::ParameterRegistry& registry, nn::DnnlContext& ctx,
                                         const std::string& name, int64_t in, int64_t planes,
                                         int64_t stride) {
  auto main = std::make_unique<nn::Sequential>();
  convBn(*main, registry, ctx, name, 1, {in, planes, 3, stride, 1});
  main->emplace<nn::ReluModule>();
  convBn(*main, registry, ctx, name, 2, {planes, planes, 3, 1, 1});
  auto shortcut = downsample(registry, ctx, name, in, planes, stride);
  return std::make_unique<nn::Residual>(std::move(main), std::move(shortcut), true);
}

std::unique_ptr<nn::Residual> bottleneck(nn::ParameterRegistry& registry, nn::DnnlContext& ctx,
                                         const std::string& name, int64_t in, int64_t planes,
                                         int64_t stride) {
  auto main = std::make_unique<nn::Sequential>();
  convBn(*main, registry, ctx, name, 1, {in, planes, 1, 1, 0});
  main->emplace<nn::ReluModule>();
  convBn(*main, registry, ctx, name, 2, {planes, planes, 3, stride, 1});
  main->emplace<nn::ReluModule>();
  convBn(*main, registry, ctx, name, 3, {planes, planes * 4, 1, 1, 0});
  auto shortcut = downsample(registry, ctx, name, in, planes * 4, stride);
  return std::make_unique<nn::Residual>(std::move(main), std::move(shortcut), true);
}

}  // namespace dtb::model::resnet
