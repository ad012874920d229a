// LeNet against PyTorch: the same weights and inputs give the same loss and
// the same gradient for every one of the 21,840 parameters (fixture from
// tools/fixtures/lenet_reference.py), gradients become ready in reverse
// layer order, and a finite-difference check of the backward pass. Also its
// two dropouts as the layer library makes them: Dropout2d drops whole
// channels, and both draw from one stream.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <vector>

#include "dtbench/plugin.hpp"
#include "elementwise.h"
#include "host/plugin_instance.h"
#include "layers.h"
#include "plugin/loader.h"

namespace dtb::core {
namespace {

class LeNetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PluginLoader loader(SearchPath({DTBENCH_PLUGIN_DIR}));
    dtb_model_setup_t setup{};
    setup.struct_size = sizeof(setup);
    setup.device = {DTB_DEVICE_HOST, 0};
    setup.input_ndim = 3;
    setup.input_shape[0] = 1;
    setup.input_shape[1] = 28;
    setup.input_shape[2] = 28;
    setup.num_classes = 10;
    setup.max_batch = 4;
    setup.seed = 1;
    setup.threads = 1;
    model_ = createModel(loader.load(PluginKind::kModel, "lenet"), {{"dropout", 0.0}}, setup);
    model_->check("params", api().params(model_->context(), &params_, &count_));
    fill(0.1, 1.3, 0.7);  // the fixture's weights and inputs
  }

  // Weight i of parameter p = scale sin(weightFrequency i + p); pixel k of
  // image n = sin(inputFrequency k + n).
  void fill(double scale, double weightFrequency, double inputFrequency) {
    for (uint32_t p = 0; p < count_; ++p) {
      auto* v = static_cast<float*>(params_[p]->value.data);
      for (uint64_t i = 0; i < params_[p]->value.count; ++i) {
        v[i] = static_cast<float>(scale * std::sin(weightFrequency * i + p));
      }
    }
    for (int n = 0; n < 4; ++n) {
      for (int k = 0; k < 784; ++k)
        inputs_[n * 784 + k] = static_cast<float>(std::sin(inputFrequency * k + n));
    }
  }

  const dtb_model_plugin_v1_t& api() { return model_->plugin().descriptor<dtb_model_plugin_v1_t>(); }

  dtb_forward_result_t forward(const dtb_step_hooks_t* hooks = nullptr) {
    dtb_batch_t batch{};
    batch.struct_size = sizeof(batch);
    batch.size = 4;
    batch.inputs = dtb::hostTensor(inputs_, 4 * 784, DTB_DTYPE_F32);
    batch.labels = dtb::hostTensor(labels_, 4, DTB_DTYPE_I32);
    dtb_forward_result_t out{};
    out.struct_size = sizeof(out);
    model_->check("forward", api().forward(model_->context(), &batch, hooks, &out));
    return out;
  }

  std::unique_ptr<PluginInstance> model_;
  dtb_param_t* const* params_ = nullptr;
  uint32_t count_ = 0;
  float inputs_[4 * 784];
  int32_t labels_[4] = {3, 1, 4, 1};
};

TEST_F(LeNetTest, HasThePyTorchExamplesParameters) {
  uint64_t total = 0;
  for (uint32_t p = 0; p < count_; ++p) total += params_[p]->value.count;
  EXPECT_EQ(total, 21840u);
  EXPECT_EQ(count_, 8u);
  EXPECT_STREQ(params_[4]->name, "fc1.weight");
}

TEST_F(LeNetTest, LossAndEveryGradientMatchPyTorch) {
  std::ifstream in(std::string(DTBENCH_SOURCE_DIR) + "/tests/models/fixtures/lenet_torch.txt");
  ASSERT_TRUE(in);
  std::string key;
  double expectedLoss = 0;
  uint32_t expectedCorrect = 0;
  in >> key >> expectedLoss >> key >> expectedCorrect;
  const dtb_forward_result_t out = forward();
  EXPECT_NEAR(out.loss, expectedLoss, 1e-5);
  EXPECT_EQ(out.correct, expectedCorrect);
  model_->check("backward", api().backward(model_->context(), nullptr));
  std::string line;
  std::getline(in, line);
  int checked = 0;
  double worst = 0;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string name;
    row >> name;
    const dtb_param_t* param = nullptr;
    for (uint32_t p = 0; p < count_; ++p) {
      if (name == params_[p]->name) param = params_[p];
    }
    ASSERT_NE(param, nullptr) << name;
    const auto* grad = static_cast<const float*>(param->grad.data);
    for (uint64_t i = 0; i < param->grad.count; ++i, ++checked) {
      double expected = 0;
      row >> expected;
      worst = std::max(worst, std::fabs(grad[i] - expected));
      ASSERT_NEAR(grad[i], expected, 2e-6 + 1e-4 * std::fabs(expected)) << name << "[" << i << "]";
    }
  }
  EXPECT_EQ(checked, 21840);
  RecordProperty("max_abs_gradient_difference", std::to_string(worst));
}

TEST_F(LeNetTest, GradientsBecomeReadyInReverseLayerOrder) {
  struct Seen {
    std::vector<std::string> events;
  } seen;
  dtb_step_hooks_t hooks{};
  hooks.struct_size = sizeof(hooks);
  hooks.user = &seen;
  hooks.layer_begin = [](void* user, uint32_t layer, dtb_pass_t pass) {
    static_cast<Seen*>(user)->events.push_back((pass == DTB_PASS_FORWARD ? "F" : "B") +
                                               std::to_string(layer));
    return DTB_STATUS_OK;
  };
  hooks.grad_ready = [](void* user, dtb_param_t* p) {
    static_cast<Seen*>(user)->events.push_back(p->name);
    return DTB_STATUS_OK;
  };
  forward(&hooks);
  model_->check("backward", api().backward(model_->context(), &hooks));
  EXPECT_EQ(seen.events, (std::vector<std::string>{"F0", "F1", "F2", "F3", "B3", "fc2.bias", "fc2.weight",
                                                   "B2", "fc1.bias", "fc1.weight", "B1", "conv2.bias",
                                                   "conv2.weight", "B0", "conv1.bias", "conv1.weight"}));
}

TEST_F(LeNetTest, BackwardAgreesWithFiniteDifferences) {
  // Smooth weights and inputs: few ReLU or max-pool kinks within reach of h.
  fill(0.05, 0.37, 0.01);
  forward();
  model_->check("backward", api().backward(model_->context(), nullptr));
  // A few coordinates of each parameter: central differences in float.
  for (uint32_t p = 0; p < count_; ++p) {
    auto* value = static_cast<float*>(params_[p]->value.data);
    std::vector<float> analytic(static_cast<const float*>(params_[p]->grad.data),
                                static_cast<const float*>(params_[p]->grad.data) + params_[p]->grad.count);
    for (uint64_t i : {uint64_t{0}, params_[p]->value.count / 2, params_[p]->value.count - 1}) {
      const float saved = value[i];
      const float h = 1e-2f;
      value[i] = saved + h;
      const double up = forward().loss;
      value[i] = saved - h;
      const double down = forward().loss;
      value[i] = saved;
      const double numeric = (up - down) / (2 * h);
      EXPECT_NEAR(analytic[i], numeric, 2e-3 + 2e-2 * std::fabs(numeric))
          << params_[p]->name << "[" << i << "]";
    }
  }
}

// Two modules of one seed draw as one generator would, in the order they
// run (what keeps LeNet's masks those of its one generator), and the
// per-channel one gives each channel of a sample one mask value.
TEST(LeNet, DropoutsOfOneSeedDrawFromOneStreamAndDropout2dDropsChannels) {
  auto layers = nn::makeCpuLayers();
  auto channels = layers->dropout({0.5, 7, /*perChannel=*/true});
  auto elements = layers->dropout({0.5, 7});
  const nn::Shape in{4, 20, 8, 8};
  const std::vector<float> ones(in.count(), 1.0f);
  const nn::Pass training(nullptr, true);
  const float* a = channels->forward(ones.data(), in, training);
  const std::vector<float> first(a, a + in.count());
  const float* b = elements->forward(ones.data(), in, training);
  const std::vector<float> second(b, b + in.count());

  std::mt19937_64 generator(7);
  std::vector<float> y(in.count()), mask;
  nn::dropoutForward(ones.data(), y.data(), in.count(), 0.5, 64, generator, mask);
  EXPECT_EQ(first, y) << "the channel dropout's masks are not the generator's first draws";
  nn::dropoutForward(ones.data(), y.data(), in.count(), 0.5, 1, generator, mask);
  EXPECT_EQ(second, y) << "the second module did not go on where the first stopped";
  for (uint64_t c = 0; c < 4 * 20; ++c) {
    for (uint64_t k = 1; k < 64; ++k) ASSERT_EQ(first[c * 64 + k], first[c * 64]) << "channel " << c;
  }
}

// Since ABI 1.11 the layer library's models take a GPU batch where it is
// (the host's copy-stream prefetch). On the host such inputs are refused,
// naming where they are; the linear test model never declared it.
TEST_F(LeNetTest, DeclaresGpuInputsAndRefusesThemOnTheHost) {
  EXPECT_EQ(api().input_devices & DTB_MODEL_INPUTS_ON_DEVICE, DTB_MODEL_INPUTS_ON_DEVICE);
  dtb_batch_t batch{};
  batch.struct_size = sizeof(batch);
  batch.size = 4;
  batch.inputs = dtb::hostTensor(inputs_, 4 * 784, DTB_DTYPE_F32);
  batch.inputs.device = {DTB_DEVICE_CUDA, 0};
  batch.labels = dtb::hostTensor(labels_, 4, DTB_DTYPE_I32);
  dtb_forward_result_t out{};
  out.struct_size = sizeof(out);
  try {
    model_->check("forward", api().forward(model_->context(), &batch, nullptr, &out));
    FAIL() << "a model on the host took GPU inputs";
  } catch (const PluginCallError& e) {
    EXPECT_NE(std::string(e.what()).find("not in host memory"), std::string::npos) << e.what();
  }
  PluginLoader loader(SearchPath({DTBENCH_PLUGIN_DIR}));
  EXPECT_EQ(loader.load(PluginKind::kModel, "linear")->descriptor<dtb_model_plugin_v1_t>().input_devices, 0u);
}

TEST(LeNet, RefusesInputsItCannotTake) {
  PluginLoader loader(SearchPath({DTBENCH_PLUGIN_DIR}));
  dtb_model_setup_t setup{};
  setup.struct_size = sizeof(setup);
  setup.input_ndim = 3;
  setup.input_shape[0] = 3;
  setup.input_shape[1] = 32;
  setup.input_shape[2] = 32;
  setup.num_classes = 10;
  setup.max_batch = 1;
  try {
    createModel(loader.load(PluginKind::kModel, "lenet"), {}, setup);
    FAIL() << "lenet took CIFAR-shaped input";
  } catch (const PluginCallError& e) {
    EXPECT_NE(std::string(e.what()).find("lenet expects 1x28x28 samples"), std::string::npos) << e.what();
  }
  setup.input_ndim = 1;  // 784 values flat (a synthetic dataset's shape = [784])
  setup.input_shape[0] = 784;
  try {
    createModel(loader.load(PluginKind::kModel, "lenet"), {}, setup);
    FAIL() << "lenet took flat input";
  } catch (const PluginCallError& e) {
    EXPECT_NE(std::string(e.what()).find("lenet expects 1x28x28 samples"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace dtb::core
