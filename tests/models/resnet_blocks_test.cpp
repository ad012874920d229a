// ResNet's basic block and bottleneck against PyTorch: two small networks of
// torchvision's blocks (identity and downsampling shortcuts), the same
// weights and input, give the same loss, the same gradient for every
// parameter, and after one training step the same eval-mode loss (so batch
// norm's running statistics moved alike). Fixture from
// tools/fixtures/resnet_blocks_reference.py. Then a finite-difference check
// through both block kinds.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "layer_modules.h"
#include "loss.h"
#include "residual_blocks.h"
#include "sequential.h"

namespace dtb::model::resnet {
namespace {

struct Reference {
  double loss = 0, evalLoss = 0;
  uint32_t correct = 0;
  std::map<std::string, std::vector<double>> grads;
  std::vector<std::string> order;
};

std::map<std::string, Reference> readFixture() {
  std::ifstream in(std::string(DTBENCH_SOURCE_DIR) + "/tests/models/fixtures/resnet_blocks_torch.txt");
  std::map<std::string, Reference> nets;
  Reference* net = nullptr;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string key;
    row >> key;
    if (key == "net") {
      row >> key;
      net = &nets[key];
    } else if (key == "loss") {
      row >> net->loss;
    } else if (key == "correct") {
      row >> net->correct;
    } else if (key == "eval_loss") {
      row >> net->evalLoss;
    } else {
      net->order.push_back(key);
      for (double v; row >> v;) net->grads[key].push_back(v);
    }
  }
  return nets;
}

class BlockNet {
 public:
  BlockNet(bool bottleneckBlocks, int64_t channels) : registry_(1), channels_(channels) {
    if (bottleneckBlocks) {
      body_.add(bottleneck(*layers_, registry_, "blocks.0", 16, 4, 1));
      body_.add(bottleneck(*layers_, registry_, "blocks.1", 16, 8, 2));
    } else {
      body_.add(basicBlock(*layers_, registry_, "blocks.0", 4, 4, 1));
      body_.add(basicBlock(*layers_, registry_, "blocks.1", 4, 8, 2));
    }
    body_.emplace<nn::GlobalAvgPoolModule>();
    body_.add(layers_->linear(registry_, "fc", bottleneckBlocks ? 32 : 8, 3));
    // The fixture's weights and input.
    for (uint32_t p = 0; p < registry_.paramCount(); ++p) {
      dtb_param_t* param = registry_.views()[p];
      auto* v = static_cast<float*>(param->value.data);
      for (uint64_t i = 0; i < param->value.count; ++i)
        v[i] = static_cast<float>(0.1 * std::sin(1.3 * i + p));
    }
    input_.resize(2 * channels * 36);
    for (size_t k = 0; k < input_.size(); ++k) {
      input_[k] = static_cast<float>(
          // The integer division is the pattern's: one step per half of the input.
          // NOLINTNEXTLINE(bugprone-integer-division)
          std::sin(0.7 * static_cast<double>(k % (input_.size() / 2)) + k / (input_.size() / 2)));
    }
  }

  nn::LossResult forward(bool training) {
    const float* logits = body_.forward(input_.data(), {2, channels_, 6, 6}, nn::Pass(nullptr, training));
    return nn::crossEntropyForward(logits, labels_, 2, 3, 0.0, probabilities_);
  }

  void backward() {
    float dlogits[6];
    nn::crossEntropyBackward(probabilities_, labels_, 2, 3, 0.0, dlogits);
    body_.backward(dlogits, nn::Pass(nullptr, true), false);
  }

  nn::ParameterRegistry& registry() { return registry_; }
  std::vector<float>& input() { return input_; }

 private:
  nn::ParameterRegistry registry_;
  std::unique_ptr<nn::Layers> layers_ = nn::makeCpuLayers();
  nn::Sequential body_;
  int64_t channels_;
  std::vector<float> input_, probabilities_;
  const int32_t labels_[2] = {2, 0};
};

class ResNetBlocks : public ::testing::TestWithParam<const char*> {};

TEST_P(ResNetBlocks, LossGradientsAndRunningStatisticsMatchPyTorch) {
  const std::string kind = GetParam();
  const auto nets = readFixture();
  ASSERT_TRUE(nets.count(kind)) << "fixture lacks " << kind;
  const Reference& ref = nets.at(kind);
  BlockNet net(kind == "bottleneck", kind == "bottleneck" ? 16 : 4);

  ASSERT_EQ(net.registry().paramCount(), ref.order.size());
  for (uint32_t p = 0; p < net.registry().paramCount(); ++p) {
    EXPECT_EQ(net.registry().views()[p]->name, ref.order[p])
        << "registration order differs from torchvision's";
  }
  const nn::LossResult out = net.forward(true);
  EXPECT_NEAR(out.loss, ref.loss, 1e-5);
  EXPECT_EQ(out.correct, ref.correct);
  net.backward();
  uint64_t checked = 0;
  for (uint32_t p = 0; p < net.registry().paramCount(); ++p) {
    const dtb_param_t* param = net.registry().views()[p];
    const std::vector<double>& expected = ref.grads.at(param->name);
    ASSERT_EQ(expected.size(), param->grad.count) << param->name;
    const auto* grad = static_cast<const float*>(param->grad.data);
    for (uint64_t i = 0; i < param->grad.count; ++i, ++checked) {
      ASSERT_NEAR(grad[i], expected[i], 1e-6 + 1e-3 * std::fabs(expected[i]))
          << param->name << "[" << i << "]";
    }
  }
  EXPECT_GT(checked, 1000u);
  EXPECT_NEAR(net.forward(false).loss, ref.evalLoss, 1e-5);
}

TEST_P(ResNetBlocks, BackwardAgreesWithFiniteDifferences) {
  const std::string kind = GetParam();
  BlockNet net(kind == "bottleneck", kind == "bottleneck" ? 16 : 4);
  net.forward(true);
  net.backward();
  for (uint32_t p = 0; p < net.registry().paramCount(); ++p) {
    dtb_param_t* param = net.registry().views()[p];
    auto* value = static_cast<float*>(param->value.data);
    const std::vector<float> analytic(static_cast<const float*>(param->grad.data),
                                      static_cast<const float*>(param->grad.data) + param->grad.count);
    for (uint64_t i : {uint64_t{1}, param->value.count / 2}) {
      const float saved = value[i];
      const float h = 1e-3f;  // between float rounding (smaller) and ReLU kinks (larger)
      value[i] = saved + h;
      const double up = net.forward(true).loss;
      value[i] = saved - h;
      const double down = net.forward(true).loss;
      value[i] = saved;
      const double numeric = (up - down) / (2 * h);
      EXPECT_NEAR(analytic[i], numeric, 3e-4 + 5e-2 * std::fabs(numeric)) << param->name << "[" << i << "]";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, ResNetBlocks, ::testing::Values("basic", "bottleneck"));

}  // namespace
}  // namespace dtb::model::resnet
