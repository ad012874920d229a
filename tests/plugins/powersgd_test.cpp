// PowerSGD's arithmetic for one bucket (plugins/bucketed/powersgd.h), one
// rank: which tensors it compresses, that a rank-1 gradient comes back
// exactly, that a rank-2 one comes back as its best rank-1 part with the
// rest kept as error and added to the next step.
#include "powersgd.h"

#include <gtest/gtest.h>

#include <cmath>

namespace dtb::strategy::bucketed {
namespace {

// One world: the "all-reduce" of a single rank is the identity.
std::vector<float> roundTrip(PowerSgdBucket& bucket, std::vector<float> gradient) {
  bucket.compress(gradient.data());
  bucket.computeQs(1);
  bucket.decompress(gradient.data(), 1);
  return gradient;
}

TEST(PowerSgd, CompressesOnlyMatricesWorthIt) {
  // 8x8: (8+8) x 1 x 2 = 32 < 64, compressed; 4x4: 16 < 16 fails; a bias never.
  PowerSgdBucket bucket({}, {{0, 8, 8}, {64, 4, 4}, {80, 4, 1}}, 84, 0);
  EXPECT_EQ(bucket.compressedTensors(), 1u);
  EXPECT_EQ(bucket.ps().size(), 8u);
  EXPECT_EQ(bucket.qs().size(), 8u);
}

TEST(PowerSgd, ARankOneGradientComesBackExactlyAndTheRestUntouched) {
  PowerSgdBucket bucket({}, {{0, 6, 5}, {30, 3, 1}}, 33, 0);
  std::vector<float> g(33);
  for (int r = 0; r < 6; ++r) {
    for (int c = 0; c < 5; ++c) g[r * 5 + c] = static_cast<float>((r + 1) * (c - 2.5));  // u v^T
  }
  g[30] = 1.5f, g[31] = -2.0f, g[32] = 0.25f;
  const std::vector<float> out = roundTrip(bucket, g);
  for (size_t k = 0; k < g.size(); ++k) EXPECT_NEAR(out[k], g[k], 1e-4 * (1 + std::fabs(g[k]))) << k;
}

TEST(PowerSgd, ErrorFeedbackCarriesWhatRankOneMissed) {
  PowerSgdOptions options;
  PowerSgdBucket bucket(options, {{0, 6, 6}}, 36, 0);
  std::vector<float> g(36, 0.0f);
  for (int i = 0; i < 6; ++i) g[i * 6 + i] = (i < 3) ? 2.0f : 1.0f;  // rank 6: rank 1 cannot hold it
  const std::vector<float> first = roundTrip(bucket, g);
  double missed = 0;
  for (size_t k = 0; k < g.size(); ++k) missed += std::fabs(first[k] - g[k]);
  EXPECT_GT(missed, 1.0);
  // A zero gradient next: what comes back is the approximation of the error alone.
  const std::vector<float> second = roundTrip(bucket, std::vector<float>(36, 0.0f));
  double sent = 0;
  for (float v : second) sent += std::fabs(v);
  EXPECT_GT(sent, 0.1) << "the error of the first step was not fed back";
  PowerSgdOptions noFeedback;
  noFeedback.errorFeedback = false;
  PowerSgdBucket plain(noFeedback, {{0, 6, 6}}, 36, 0);
  roundTrip(plain, g);
  for (float v : roundTrip(plain, std::vector<float>(36, 0.0f))) EXPECT_EQ(v, 0.0f);
}

}  // namespace
}  // namespace dtb::strategy::bucketed
