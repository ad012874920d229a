#include "run/matrix_eta.h"

#include <gtest/gtest.h>

namespace dtb::core {
namespace {

// A matrix that mixes a fast model and a slow one: the ETA must not price
// the slow runs at the fast ones' pace (the bug this estimator replaced).
TEST(MatrixEta, EstimatesEachRunFromItsOwnModelAndWorldSize) {
  MatrixEta eta({{"lenet", 1, 1}, {"lenet", 2, 1}, {"resnet", 1, 1}, {"resnet", 1, 1}, {"lenet", 1, 1}});
  EXPECT_FALSE(eta.remaining(0, 0.0, 0.0));  // nothing known yet
  eta.finished(0, 10.0);
  eta.finished(1, 20.0);
  eta.finished(2, 300.0);
  // In run 3 (resnet, 1 rank), nothing done yet: itself 300, then lenet at 1 rank 10.
  EXPECT_DOUBLE_EQ(*eta.remaining(3, 0.0, 0.0), 300.0 + 10.0);
  // Once it has gone some way, its own pace: half done in 100 s leaves 100 s.
  EXPECT_DOUBLE_EQ(*eta.remaining(3, 0.5, 100.0), 100.0 + 10.0);
  EXPECT_DOUBLE_EQ(*eta.remaining(5, 0.0, 0.0), 0.0);  // past the end
}

TEST(MatrixEta, FallsBackToTheModelThenToAnyRunAndScalesByEpochs) {
  MatrixEta eta({{"lenet", 1, 2}, {"lenet", 4, 4}, {"mlp", 1, 1}});
  eta.finished(0, 20.0);  // 10 s per epoch
  // lenet at 4 ranks has no peer at 4 ranks: lenet's 10 s/epoch x 4 epochs;
  // mlp has no run of its own: any run's 10 s/epoch.
  EXPECT_DOUBLE_EQ(*eta.remaining(1, 0.0, 0.0), 40.0 + 10.0);
}

TEST(MatrixEta, TheFirstRunOfAModelPricesTheOthersOfIt) {
  MatrixEta eta({{"lenet", 1, 1}, {"resnet", 1, 2}, {"resnet", 2, 2}});
  eta.finished(0, 10.0);
  // resnet's first run is a quarter done after 50 s: 200 s for 2 epochs,
  // 150 s left, and its twin at 2 ranks is priced at 100 s an epoch too.
  EXPECT_DOUBLE_EQ(*eta.remaining(1, 0.25, 50.0), 150.0 + 200.0);
}

}  // namespace
}  // namespace dtb::core
