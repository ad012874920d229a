// The gradient profile times each backward with its clock (the host's, or
// CUDA events on a GPU model's stream: train/backward_clock.h): a gradient's
// time is the clock's reading at its mark, the backward's the reading at its
// end, the first backward is left out, and gradients come in the order the
// clock says they were ready, whatever order the hooks ran in.
#include "train/gradient_profile.h"

#include <gtest/gtest.h>

#include <memory>
#include <utility>
#include <vector>

namespace dtb::core {
namespace {

// Reads what it is given: one list of seconds per backward, a mark each.
class ScriptedClock final : public BackwardClock {
 public:
  explicit ScriptedClock(std::vector<std::vector<double>> backwards) : backwards_(std::move(backwards)) {}
  void begin() override { marks_ = 0; }
  void mark() override { ++marks_; }
  std::vector<double> read() override {
    std::vector<double> out = backwards_.at(read_++);
    out.resize(marks_);
    return out;
  }

 private:
  std::vector<std::vector<double>> backwards_;
  size_t read_ = 0;
  size_t marks_ = 0;
};

dtb_param_t gradientOf(uint32_t index, uint64_t count, const char* name) {
  dtb_param_t p{};
  p.struct_size = sizeof(p);
  p.index = index;
  p.layer = index;
  p.name = name;
  p.grad.count = count;
  p.grad.dtype = DTB_DTYPE_F32;
  return p;
}

TEST(GradientProfile, TimesAreTheClocksReadingsAveragedOverAllButTheFirstBackward) {
  GradientProfile profile;
  // Two profiled backwards: [grad 1, grad 0, end] each.
  profile.timeOn(std::make_unique<ScriptedClock>(
      std::vector<std::vector<double>>{{0.004, 0.001, 0.010}, {0.006, 0.003, 0.012}}));
  const dtb_param_t first = gradientOf(0, 10, "a.weight"), second = gradientOf(1, 20, "b.weight");
  for (int backward = 0; backward < 3; ++backward) {
    profile.beginBackward();
    profile.ready(second);  // hooks in this order; the clock says `first` was ready earlier
    profile.ready(first);
    profile.endBackward();
  }
  EXPECT_EQ(profile.backwards(), 2);
  EXPECT_DOUBLE_EQ(profile.backwardS(), 0.011);
  const std::vector<ReadyGradient> gradients = profile.gradients();
  ASSERT_EQ(gradients.size(), 2u);
  EXPECT_EQ(gradients[0].name, "a.weight");
  EXPECT_DOUBLE_EQ(gradients[0].readyS, 0.002);
  EXPECT_EQ(gradients[0].bytes, 40u);
  EXPECT_EQ(gradients[1].name, "b.weight");
  EXPECT_DOUBLE_EQ(gradients[1].readyS, 0.005);
}

TEST(GradientProfile, TheHostsClockCountsFromTheBackwardsBeginning) {
  GradientProfile profile;
  const dtb_param_t only = gradientOf(0, 1, "w");
  for (int backward = 0; backward < 2; ++backward) {
    profile.beginBackward();
    profile.ready(only);
    profile.endBackward();
  }
  const std::vector<ReadyGradient> gradients = profile.gradients();
  ASSERT_EQ(gradients.size(), 1u);
  EXPECT_GE(gradients[0].readyS, 0.0);
  EXPECT_LE(gradients[0].readyS, profile.backwardS());
}

}  // namespace
}  // namespace dtb::core
