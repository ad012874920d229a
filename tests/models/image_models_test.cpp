// The resnet and mobilenetv2 plugins as the host sees them: torchvision's
// parameter counts for every depth and stem, hooks called in the true order
// (each layer begins once per pass; every gradient is ready exactly once,
// the classifier's first), eval mode, and clear refusals; and every model's
// gradients independent of where a strategy puts its parameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "dtbench/plugin.hpp"
#include "host/plugin_instance.h"
#include "image_model_setup.h"
#include "plugin/loader.h"

namespace dtb::core {
namespace {

dtb_model_setup_t imageSetup(int64_t channels, int64_t size, uint32_t classes) {
  return testing::imageModelSetup({DTB_DEVICE_HOST, 0}, channels, size, 2, classes, 7, 1);
}

std::unique_ptr<PluginInstance> create(const char* model, const ParamValues& params,
                                       const dtb_model_setup_t& setup) {
  PluginLoader loader(SearchPath({DTBENCH_PLUGIN_DIR}));
  return createModel(loader.load(PluginKind::kModel, model), params, setup);
}

const dtb_model_plugin_v1_t& api(PluginInstance& model) {
  return model.plugin().descriptor<dtb_model_plugin_v1_t>();
}

uint64_t parameterCount(PluginInstance& model) {
  dtb_param_t* const* params = nullptr;
  uint32_t count = 0;
  model.check("params", api(model).params(model.context(), &params, &count));
  uint64_t total = 0;
  for (uint32_t p = 0; p < count; ++p) total += params[p]->value.count;
  return total;
}

TEST(ImageModels, ParameterCountsAreTorchvisions) {
  // torchvision.models.resnetNN() / mobilenet_v2(): 1000 ImageNet classes.
  const std::map<int64_t, uint64_t> resnet = {
      {18, 11689512}, {34, 21797672}, {50, 25557032}, {101, 44549160}, {152, 60192808}};
  for (const auto& [depth, expected] : resnet) {
    auto model = create("resnet", {{"depth", depth}}, imageSetup(3, 224, 1000));
    EXPECT_EQ(parameterCount(*model), expected) << "resnet" << depth;
  }
  EXPECT_EQ(parameterCount(*create("mobilenetv2", {}, imageSetup(3, 224, 1000))), 3504872u);
  // The CIFAR stem: a 3x3 first convolution (ResNet-18 for CIFAR-10 has
  // 11,173,962 parameters, as in the CIFAR studies).
  EXPECT_EQ(parameterCount(*create("resnet", {}, imageSetup(3, 32, 10))), 11173962u);
}

// A batch of two fixed images (channels x size x size) and their labels.
struct TwoImages {
  TwoImages(int64_t channels, int64_t size) : inputs(2 * channels * size * size) {
    for (size_t i = 0; i < inputs.size(); ++i) inputs[i] = static_cast<float>((i * 7919 % 255) / 255.0 - 0.5);
  }
  dtb_batch_t batch() {
    dtb_batch_t b{};
    b.struct_size = sizeof(b);
    b.size = 2;
    b.inputs = dtb::hostTensor(inputs.data(), inputs.size(), DTB_DTYPE_F32);
    b.labels = dtb::hostTensor(labels, 2, DTB_DTYPE_I32);
    return b;
  }
  std::vector<float> inputs;
  int32_t labels[2] = {3, 8};
};

class HookOrder : public ::testing::TestWithParam<const char*> {};

TEST_P(HookOrder, LayersBeginOncePerPassAndEveryGradientIsReadyOnce) {
  auto model = create(GetParam(), {}, imageSetup(3, 32, 10));
  dtb_param_t* const* params = nullptr;
  uint32_t count = 0;
  model->check("params", api(*model).params(model->context(), &params, &count));
  const char* const* layers = nullptr;
  uint32_t layerCount = 0;
  model->check("layers", api(*model).layers(model->context(), &layers, &layerCount));

  struct Seen {
    std::vector<uint32_t> forward, backward;
    std::vector<dtb_param_t*> ready;
  } seen;
  dtb_step_hooks_t hooks{};
  hooks.struct_size = sizeof(hooks);
  hooks.user = &seen;
  hooks.layer_begin = [](void* user, uint32_t layer, dtb_pass_t pass) {
    auto* s = static_cast<Seen*>(user);
    (pass == DTB_PASS_FORWARD ? s->forward : s->backward).push_back(layer);
    return DTB_STATUS_OK;
  };
  hooks.grad_ready = [](void* user, dtb_param_t* p) {
    static_cast<Seen*>(user)->ready.push_back(p);
    return DTB_STATUS_OK;
  };
  TwoImages images(3, 32);
  dtb_batch_t batch = images.batch();
  dtb_forward_result_t out{};
  out.struct_size = sizeof(out);
  model->check("forward", api(*model).forward(model->context(), &batch, &hooks, &out));
  EXPECT_GT(out.loss, 0.5);  // about ln 10 from a fresh initialisation
  EXPECT_LT(out.loss, 10.0);
  model->check("backward", api(*model).backward(model->context(), &hooks));

  std::vector<uint32_t> ascending(layerCount);
  for (uint32_t l = 0; l < layerCount; ++l) ascending[l] = l;
  EXPECT_EQ(seen.forward, ascending);
  std::multiset<uint32_t> backwardLayers(seen.backward.begin(), seen.backward.end());
  EXPECT_EQ(backwardLayers, std::multiset<uint32_t>(ascending.begin(), ascending.end()));
  EXPECT_EQ(seen.backward.front(), layerCount - 1);
  ASSERT_EQ(seen.ready.size(), count);
  EXPECT_EQ(std::set<dtb_param_t*>(seen.ready.begin(), seen.ready.end()).size(), count);
  EXPECT_EQ(seen.ready.front()->layer, layerCount - 1) << "the classifier's gradients are final first";

  model->check("set_mode", api(*model).set_mode(model->context(), DTB_MODE_EVAL));
  model->check("forward", api(*model).forward(model->context(), &batch, nullptr, &out));
  EXPECT_TRUE(std::isfinite(out.loss));
}

INSTANTIATE_TEST_SUITE_P(Models, HookOrder, ::testing::Values("resnet", "mobilenetv2"));

TEST(ImageModels, RefusesWhatItCannotBuild) {
  auto expectError = [](const char* model, const ParamValues& params, const dtb_model_setup_t& setup,
                        const std::string& message) {
    try {
      create(model, params, setup);
      ADD_FAILURE() << model << " accepted; expected: " << message;
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  };
  expectError("resnet", {{"depth", int64_t{20}}}, imageSetup(3, 32, 10),
              "depth must be 18, 34, 50, 101 or 152; got 20");
  expectError("resnet", {{"stem", std::string("tiny")}}, imageSetup(3, 32, 10),
              "'tiny' is not one of: auto, cifar");
  dtb_model_setup_t flat = imageSetup(3, 32, 10);
  flat.input_ndim = 1;
  expectError("mobilenetv2", {}, flat, "expects image samples [channels, height, width]; got 1 dimensions");
}

// What ZeRO-3 relies on (model.h): a model reads a parameter only through
// its view, after the layer's layer_begin, in both passes. Here every
// layer_begin moves the layer's values (and, in backward, its gradients) to
// fresh memory and fills the old with NaN; the gradients must equal those
// of an identical model left alone. A layer that kept forward's pointer for
// backward would read NaN.
struct MovedCase {
  const char* model;
  int64_t channels, size;
};

class MovedParameters : public ::testing::TestWithParam<MovedCase> {};

struct Mover {
  dtb_param_t* const* params = nullptr;
  uint32_t count = 0;
  std::vector<std::unique_ptr<std::vector<float>>> memory;  // every buffer handed out, alive to the end
  float* fresh(dtb_tensor_t& t, bool keepValues) {
    auto buffer = std::make_unique<std::vector<float>>(t.count, 0.0f);
    auto* old = static_cast<float*>(t.data);
    if (keepValues && old) std::copy(old, old + t.count, buffer->begin());
    if (old) std::fill(old, old + t.count, std::nanf(""));
    t.data = buffer->data();
    memory.push_back(std::move(buffer));
    return static_cast<float*>(t.data);
  }
};

std::vector<float> gradientsOf(PluginInstance& model, const MovedCase& setup, bool move) {
  Mover mover;
  model.check("params", api(model).params(model.context(), &mover.params, &mover.count));
  dtb_step_hooks_t hooks{};
  hooks.struct_size = sizeof(hooks);
  hooks.user = &mover;
  if (move) {
    hooks.layer_begin = [](void* user, uint32_t layer, dtb_pass_t pass) {
      auto* m = static_cast<Mover*>(user);
      for (uint32_t i = 0; i < m->count; ++i) {
        if (m->params[i]->layer != layer) continue;
        m->fresh(m->params[i]->value, true);
        if (pass == DTB_PASS_BACKWARD) m->fresh(m->params[i]->grad, false);
      }
      return DTB_STATUS_OK;
    };
  }
  TwoImages images(setup.channels, setup.size);
  dtb_batch_t batch = images.batch();
  dtb_forward_result_t out{};
  out.struct_size = sizeof(out);
  model.check("forward", api(model).forward(model.context(), &batch, &hooks, &out));
  model.check("backward", api(model).backward(model.context(), &hooks));
  std::vector<float> all;
  for (uint32_t i = 0; i < mover.count; ++i) {
    const auto* g = static_cast<const float*>(mover.params[i]->grad.data);
    all.insert(all.end(), g, g + mover.params[i]->grad.count);
  }
  return all;
}

TEST_P(MovedParameters, GradientsDoNotDependOnWhereParametersLive) {
  const MovedCase& c = GetParam();
  auto left = create(c.model, {}, imageSetup(c.channels, c.size, 10));
  auto moved = create(c.model, {}, imageSetup(c.channels, c.size, 10));  // same seed: same weights
  const std::vector<float> expected = gradientsOf(*left, c, false), got = gradientsOf(*moved, c, true);
  ASSERT_EQ(got.size(), expected.size());
  size_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!(std::fabs(got[i] - expected[i]) <= 1e-5f * (1.0f + std::fabs(expected[i])))) ++wrong;
  }
  EXPECT_EQ(wrong, 0u) << "of " << got.size() << " gradient elements";
}

std::string movedCaseName(const ::testing::TestParamInfo<MovedCase>& c) { return c.param.model; }

INSTANTIATE_TEST_SUITE_P(Models, MovedParameters,
                         ::testing::Values(MovedCase{"resnet", 3, 32}, MovedCase{"mobilenetv2", 3, 32},
                                           MovedCase{"lenet", 1, 28}, MovedCase{"mlp", 1, 8}),
                         movedCaseName);

}  // namespace
}  // namespace dtb::core
