// The optimizers against PyTorch (fixture written by
// tools/fixtures/optimizer_reference.py with torch.optim) and against the
// update rules written out by hand.
#include "train/optimizer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

namespace dtb::core {
namespace {

const std::vector<float> kInitial = {0.5f, -1.25f, 2.0f, 0.0f, -0.3f, 1e-3f, 7.5f};

std::vector<float> gradientAt(int step) {
  std::vector<float> g(kInitial.size());
  for (size_t i = 0; i < g.size(); ++i) {
    g[i] = static_cast<float>((static_cast<int>(i) - 3) * 0.1 * step * (step % 2 ? -1 : 1) + 0.05);
  }
  return g;
}

TEST(Optimizer, MatchesTorchOptimStepByStep) {
  std::ifstream in(std::string(DTBENCH_SOURCE_DIR) + "/tests/core/train/fixtures/optimizer_torch.txt");
  ASSERT_TRUE(in) << "fixture missing";
  std::string line;
  int checked = 0;
  std::string current;
  std::unique_ptr<Optimizer> optimizer;
  std::vector<float> param, state;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string name;
    OptimizerConfig config;
    int nesterov = 0, step = 0;
    row >> name >> config.kind >> config.lr >> config.momentum >> nesterov >> config.weightDecay >> step;
    config.nesterov = nesterov != 0;
    if (name != current) {
      current = name;
      optimizer = std::make_unique<Optimizer>(config);
      param = kInitial;
      state.assign(param.size() * optimizer->stateFloats(), 0.0f);
    }
    const std::vector<float> grad = gradientAt(step);
    optimizer->beginStep();
    optimizer->update(param.data(), grad.data(), state.data(), param.size());
    for (size_t i = 0; i < param.size(); ++i) {
      float expected = 0;
      row >> expected;
      EXPECT_NEAR(param[i], expected, 1e-6 + 1e-5 * std::fabs(expected))
          << name << " step " << step << " i " << i;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 35);  // 7 configurations x 5 steps
}

TEST(Optimizer, SgdMomentumByHand) {
  Optimizer sgd({"sgd", 0.1, 0.9, false, 0.0});
  ASSERT_EQ(sgd.stateFloats(), 1u);
  float p = 1.0f, g = 2.0f, buf = 0.0f;
  sgd.beginStep();
  sgd.update(&p, &g, &buf, 1);  // buf = 2, p = 1 - 0.2
  EXPECT_FLOAT_EQ(p, 0.8f);
  sgd.beginStep();
  sgd.update(&p, &g, &buf, 1);  // buf = 0.9 x 2 + 2 = 3.8, p = 0.8 - 0.38
  EXPECT_FLOAT_EQ(buf, 3.8f);
  EXPECT_FLOAT_EQ(p, 0.42f);
}

TEST(Optimizer, AdamFirstStepMovesByTheLearningRate) {
  // After bias correction, m/sqrt(v) is sign(g) on the first step.
  Optimizer adam({"adam", 1e-3});
  ASSERT_EQ(adam.stateFloats(), 2u);
  std::vector<float> p = {1.0f, 1.0f}, g = {0.5f, -3.0f}, state(4, 0.0f);
  adam.beginStep();
  adam.update(p.data(), g.data(), state.data(), 2);
  EXPECT_NEAR(p[0], 1.0f - 1e-3f, 1e-7);
  EXPECT_NEAR(p[1], 1.0f + 1e-3f, 1e-7);
}

// The GPU's kernels clip from the rule (gpu_optimizer.cu), the host's loop
// from the same: the step's factor is in it until the next step's updates
// begin.
TEST(Optimizer, TheRuleCarriesTheStepsClipFactor) {
  Optimizer sgd({"sgd", 0.1});
  EXPECT_FLOAT_EQ(sgd.rule(WeightDecay::kApply).clip, 1.0f);
  sgd.setClip(4.0, 0.25f);
  EXPECT_FLOAT_EQ(sgd.rule(WeightDecay::kApply).clip, 0.25f);
  EXPECT_FLOAT_EQ(sgd.rule(WeightDecay::kSkip).clip, 0.25f);
  float p = 1.0f, g = 2.0f;
  sgd.beginStep();
  sgd.update(&p, &g, nullptr, 1);  // p = 1 - 0.1 x 0.25 x 2
  EXPECT_FLOAT_EQ(p, 0.95f);
  sgd.beginUpdates();
  EXPECT_FLOAT_EQ(sgd.rule(WeightDecay::kApply).clip, 1.0f);
}

TEST(Optimizer, RejectsWhatTorchRejects) {
  EXPECT_THROW(Optimizer({"lamb"}), std::invalid_argument);
  EXPECT_THROW(Optimizer({"sgd", 0.1, 0.0, true}), std::invalid_argument);  // nesterov without momentum
}

}  // namespace
}  // namespace dtb::core
