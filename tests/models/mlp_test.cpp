// The mlp model against PyTorch (fixture from tools/fixtures/mlp_reference.py):
// same weights and inputs, same loss and gradients; and its shape.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "dtbench/plugin.hpp"
#include "host/plugin_instance.h"
#include "plugin/loader.h"

namespace dtb::core {
namespace {

std::unique_ptr<PluginInstance> makeMlp(const ParamValues& params, std::vector<int64_t> input,
                                        uint32_t classes) {
  PluginLoader loader(SearchPath({DTBENCH_PLUGIN_DIR}));
  dtb_model_setup_t setup{};
  setup.struct_size = sizeof(setup);
  setup.device = {DTB_DEVICE_HOST, 0};
  setup.input_ndim = static_cast<int32_t>(input.size());
  for (size_t d = 0; d < input.size(); ++d) setup.input_shape[d] = input[d];
  setup.num_classes = classes;
  setup.max_batch = 4;
  setup.seed = 1;
  return createModel(loader.load(PluginKind::kModel, "mlp"), params, setup);
}

TEST(Mlp, DefaultShapeOnMnist) {
  auto model = makeMlp({}, {1, 28, 28}, 10);
  dtb_param_t* const* params = nullptr;
  uint32_t count = 0;
  model->check("params",
               model->plugin().descriptor<dtb_model_plugin_v1_t>().params(model->context(), &params, &count));
  uint64_t total = 0;
  for (uint32_t p = 0; p < count; ++p) total += params[p]->value.count;
  EXPECT_EQ(count, 6u);
  EXPECT_EQ(total, 784u * 512 + 512 + 512 * 256 + 256 + 256 * 10 + 10);
}

TEST(Mlp, LossAndGradientsMatchPyTorch) {
  auto model = makeMlp({{"widths", std::vector<int64_t>{16, 8}}}, {20}, 5);
  const auto& api = model->plugin().descriptor<dtb_model_plugin_v1_t>();
  dtb_param_t* const* params = nullptr;
  uint32_t count = 0;
  model->check("params", api.params(model->context(), &params, &count));
  for (uint32_t p = 0; p < count; ++p) {
    auto* v = static_cast<float*>(params[p]->value.data);
    for (uint64_t i = 0; i < params[p]->value.count; ++i)
      v[i] = static_cast<float>(0.1 * std::sin(1.3 * i + p));
  }
  float inputs[4 * 20];
  for (int n = 0; n < 4; ++n) {
    for (int k = 0; k < 20; ++k) inputs[n * 20 + k] = static_cast<float>(std::sin(0.7 * k + n));
  }
  int32_t labels[4] = {3, 1, 4, 1};
  dtb_batch_t batch{};
  batch.struct_size = sizeof(batch);
  batch.size = 4;
  batch.inputs = dtb::hostTensor(inputs, 80, DTB_DTYPE_F32);
  batch.labels = dtb::hostTensor(labels, 4, DTB_DTYPE_I32);
  dtb_forward_result_t out{};
  out.struct_size = sizeof(out);
  model->check("forward", api.forward(model->context(), &batch, nullptr, &out));
  model->check("backward", api.backward(model->context(), nullptr));

  std::ifstream in(std::string(DTBENCH_SOURCE_DIR) + "/tests/models/fixtures/mlp_torch.txt");
  ASSERT_TRUE(in);
  std::string key;
  double loss = 0;
  in >> key >> loss;
  EXPECT_NEAR(out.loss, loss, 1e-6);
  std::string line;
  std::getline(in, line);
  int checked = 0;
  for (uint32_t p = 0; std::getline(in, line); ++p) {
    std::istringstream row(line);
    std::string name;
    row >> name;
    ASSERT_LT(p, count);
    EXPECT_EQ(name, params[p]->name);
    const auto* grad = static_cast<const float*>(params[p]->grad.data);
    for (uint64_t i = 0; i < params[p]->grad.count; ++i, ++checked) {
      double expected = 0;
      row >> expected;
      ASSERT_NEAR(grad[i], expected, 1e-6 + 1e-4 * std::fabs(expected)) << name << "[" << i << "]";
    }
  }
  EXPECT_EQ(checked, 20 * 16 + 16 + 16 * 8 + 8 + 8 * 5 + 5);
}

}  // namespace
}  // namespace dtb::core
