// Max pooling on the CPU: the 2x2 stride-2 path (LeNet's) gives what the
// general window gives — values and the winning input per output — with
// ties (the first maximum wins, as in PyTorch), NaN and odd sizes; and the
// backward routes each gradient to that input.
#include "pooling.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "pool_window.h"

namespace dtb::nn {
namespace {

TEST(MaxPool, TwoByTwoMatchesTheGeneralWindowWithTiesNanAndOddSizes) {
  for (const auto& [h, w] : {std::pair<int64_t, int64_t>{24, 24}, {7, 9}, {2, 2}}) {
    const int64_t planes = 6, oh = h / 2, ow = w / 2;
    std::vector<float> x(static_cast<size_t>(planes * h * w));
    std::mt19937 random(7);
    // Few distinct values: most windows hold a tie.
    for (float& v : x) v = static_cast<float>(std::uniform_int_distribution<int>(-2, 2)(random));
    x[1] = NAN;  // a NaN second in its window: never larger, never taken
    x[x.size() - 1] = NAN;
    x[static_cast<size_t>(2 * h * w)] = NAN;  // a NaN first in its window: it stays
    std::vector<float> y(static_cast<size_t>(planes * oh * ow));
    std::vector<uint32_t> argmax;
    maxPoolForward(x.data(), 2, 3, h, w, {2, 2, 0}, y.data(), argmax);
    ASSERT_EQ(argmax.size(), y.size());
    for (int64_t p = 0; p < planes; ++p) {
      for (int64_t i = 0; i < oh; ++i) {
        for (int64_t j = 0; j < ow; ++j) {
          const WindowMax want = windowMax(x.data(), p * h * w, h, w, i, j, {2, 2, 0});
          const size_t o = static_cast<size_t>((p * oh + i) * ow + j);
          EXPECT_EQ(argmax[o], static_cast<uint32_t>(want.index))
              << h << "x" << w << " plane " << p << " (" << i << "," << j << ")";
          if (std::isnan(want.value)) {
            EXPECT_TRUE(std::isnan(y[o]));
          } else {
            EXPECT_EQ(y[o], want.value);
          }
        }
      }
    }
    std::vector<float> dy(y.size(), 1.0f), dx(x.size(), -1.0f);
    maxPoolBackward(dy.data(), argmax, dx.data(), dx.size());
    double routed = 0;
    for (float g : dx) routed += g;
    EXPECT_EQ(routed, static_cast<double>(y.size()));  // every output's gradient reached one input
  }
}

}  // namespace
}  // namespace dtb::nn
