// A fitted network's costs: each collective a ring over its own fit's link.
#include "projection/fitted_network.h"

#include <gtest/gtest.h>

#include "projection/collective_cost.h"

namespace dtb::core {
namespace {

TEST(FittedNetwork, EachCollectiveRunsOverItsOwnFit) {
  FittedNetwork fit;
  fit.system.interNode = fit.system.intraNode = linkFromAllreduceFit(700e-6, 0.2e9, 2);
  fit.reduceScatterLink =
      linkFromHalfRingFit(650e-6, 0.15e9, 2);  // a half ring that costs nearly a whole one
  fit.allgatherLink = linkFromHalfRingFit(500e-6, 0.25e9, 2);
  const double bytes = 1e5;
  for (int ranks : {2, 4}) {
    const CollectiveCosts costs = fittedCosts(fit, ranks);
    EXPECT_DOUBLE_EQ(costs.allreduceS(bytes), ringAllreduceS(bytes, ranks, fit.system.interNode));
    EXPECT_DOUBLE_EQ(costs.reduceScatterS(bytes), ringReduceScatterS(bytes, ranks, fit.reduceScatterLink));
    EXPECT_DOUBLE_EQ(costs.allgatherS(bytes), ringAllgatherS(bytes, ranks, fit.allgatherLink));
  }
  // At the sweep's 2 ranks each gives its own fit back.
  EXPECT_NEAR(fittedCosts(fit, 2).reduceScatterS(bytes), 650e-6 + bytes / 2 / 0.15e9, 1e-12);
}

}  // namespace
}  // namespace dtb::core
