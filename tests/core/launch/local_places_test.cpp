// An elastic run's workers on one machine keep their local rank, and with
// it their GPU, in every world; one that joins takes a failed worker's, never
// a survivor's (elastic/local_places.h). The local launcher hands the place
// to the worker in DTBENCH_LOCAL_RANK, which placeRank reads back.
#include "elastic/local_places.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "launch/environment_block.h"
#include "launch/rank_environment.h"
#include "worker/connect.h"

namespace dtb::core {
namespace {

TEST(LocalPlaces, AJoinerTakesAFailedWorkersPlaceNeverASurvivors) {
  LocalPlaces places;
  std::vector<int> members;
  for (int slot = 0; slot < 3; ++slot) {
    EXPECT_EQ(places.place(slot, members), slot);
    members.push_back(slot);
  }
  // Worker 1 failed; the survivors, 0 and 2, are ranks 0 and 1 of the new
  // world, and keep GPUs 0 and 2. The worker that joins gets 1.
  EXPECT_EQ(places.place(3, {0, 2}), 1);
  // Another joins beside all three: the next free one.
  EXPECT_EQ(places.place(4, {0, 2, 3}), 3);
  // Two leave at once (0 and 3): two joiners fill their places in order.
  std::vector<int> world = {2, 4};
  const int first = places.place(5, world);
  world.push_back(5);
  const int second = places.place(6, world);
  EXPECT_EQ(first, 0);
  EXPECT_EQ(second, 1);
}

TEST(EnvironmentBlock, SetsEachVariableOnceAndKeepsTheRest) {
  setenv("DTBENCH_TEST_KEPT", "kept", 1);
  setenv("DTBENCH_TEST_REPLACED", "old", 1);
  const std::vector<std::pair<std::string, std::string>> set = {{"DTBENCH_TEST_REPLACED", "new"},
                                                                {"DTBENCH_TEST_ADDED", "7"}};
  EnvironmentBlock block(set);
  std::vector<std::string> entries;
  for (char* const* e = block.pointers(); *e != nullptr; ++e) entries.emplace_back(*e);
  auto count = [&](const std::string& entry) { return std::count(entries.begin(), entries.end(), entry); };
  EXPECT_EQ(count("DTBENCH_TEST_KEPT=kept"), 1);
  EXPECT_EQ(count("DTBENCH_TEST_REPLACED=new"), 1);
  EXPECT_EQ(count("DTBENCH_TEST_REPLACED=old"), 0);
  EXPECT_EQ(count("DTBENCH_TEST_ADDED=7"), 1);
  unsetenv("DTBENCH_TEST_KEPT");
  unsetenv("DTBENCH_TEST_REPLACED");
}

TEST(PlaceRank, ALocalElasticWorkerKeepsTheLocalRankItWasStartedWith) {
  RunSpec spec;
  spec.world = 2;
  spec.cell.values = {{"launcher", std::string("local")},
                      {"backend", std::string("gloo")},
                      {"interface", std::string("")},
                      {"recovery", std::string("none")}};
  setenv(kLocalRankVariable, "2", 1);
  EXPECT_EQ(placeRank(spec, 1).localRank, 1) << "a plain local run: the rank, whatever was inherited";
  spec.cell.values["recovery"] = std::string("elastic");
  unsetenv(kLocalRankVariable);
  EXPECT_EQ(placeRank(spec, 1).localRank, 1);  // not placed: the rank
  // Renumbered rank 0 of a smaller world, it keeps local rank 2 (its GPU);
  // a joiner's may be past the world's size.
  setenv(kLocalRankVariable, "2", 1);
  const RankPlace place = placeRank(spec, 0);
  EXPECT_EQ(place.localRank, 2);
  EXPECT_EQ(place.localSize, 3);
  setenv(kLocalRankVariable, "two", 1);
  EXPECT_EQ(placeRank(spec, 1).localRank, 1);  // unreadable: the rank
  unsetenv(kLocalRankVariable);
}

}  // namespace
}  // namespace dtb::core
