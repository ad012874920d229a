// The fusion strategy on two Gloo ranks, driven through the ABI: ranks whose
// gradients become ready in different orders still reduce the same tensors
// (no hang, the average everywhere), and a tensor one rank never submits
// fails the step on every rank within the stall timeout, rank 0 naming the
// tensor and the rank that did not submit it.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <thread>

#include "host/blocking_collective.h"
#include "host/communicator.h"
#include "plugin/loader.h"
#include "temp_dir.h"
#include "train/optimizer.h"

namespace dtb::core {
namespace {

constexpr const char* kParamNames[] = {"a", "b", "c"};

struct RankResult {
  std::vector<std::vector<float>> grads;
  std::string error;
  std::map<std::string, double> metrics;  // summed over the steps
  std::vector<std::string> events;        // the strategy's, in order
};

// One rank: three gradients (5, 300 and 2 floats) filled with rank + 1 and
// handed over in `order`, then finish_backward.
RankResult runRank(int rank, const std::string& store, const std::vector<uint32_t>& order,
                   const ParamValues& params, int steps = 2) {
  PluginLoader loader(SearchPath({DTBENCH_PLUGIN_DIR}));
  dtb_rendezvous_t rdv{};
  rdv.struct_size = sizeof(rdv);
  rdv.rank = rank;
  rdv.world_size = 2;
  rdv.store_path = store.c_str();
  rdv.prefix = "f";
  rdv.bind_address = "127.0.0.1";
  rdv.timeout_ms = 10000;
  Communicator communicator(createBackend(loader.load(PluginKind::kBackend, "gloo"), {}, rdv), rank, 2,
                            std::chrono::milliseconds(10000));
  // Neither rank goes on (a refused strategy closes its sockets at once)
  // before both finished connecting: else the other's connect may read a
  // closed socket (seen 1 run in 8, an abort in the connecting thread).
  runCollective(communicator, [&](dtb_request_t* r, std::string* e) { return communicator.barrier(r, e); });
  Optimizer optimizer({"sgd", 0.1, 0.0, false, 0.0});
  const uint64_t counts[] = {5, 300, 2};
  std::vector<float> values[3], grads[3];
  dtb_param_t params3[3]{};
  dtb_param_t* views[3];
  for (uint32_t i = 0; i < 3; ++i) {
    values[i].assign(counts[i], 0.0f);
    grads[i].assign(counts[i], 0.0f);
    params3[i].struct_size = sizeof(dtb_param_t);
    params3[i].index = i;
    params3[i].name = kParamNames[i];
    params3[i].value = {values[i].data(),     counts[i], DTB_DTYPE_F32,
                        {DTB_DEVICE_HOST, 0}, 1,         {int64_t(counts[i])}};
    params3[i].grad = {grads[i].data(),      counts[i], DTB_DTYPE_F32,
                       {DTB_DEVICE_HOST, 0}, 1,         {int64_t(counts[i])}};
    views[i] = &params3[i];
  }
  dtb_strategy_setup_t setup{};
  setup.struct_size = sizeof(setup);
  setup.params = views;
  setup.param_count = 3;
  setup.layer_count = 3;
  setup.accumulation_steps = 1;
  RankResult result;
  try {
    auto strategy = createStrategy(loader.load(PluginKind::kStrategy, "fusion"), params, setup, &communicator,
                                   &optimizer);
    const auto& api = strategy->plugin().descriptor<dtb_strategy_plugin_v1_t>();
    for (int s = 0; s < steps; ++s) {  // the second step takes the response cache's path
      dtb_step_info_t info{sizeof(info), static_cast<uint64_t>(s), 0, 0, 1};
      strategy->check("before_forward", api.before_forward(strategy->context(), &info));
      for (uint32_t i : order) {
        grads[i].assign(counts[i], static_cast<float>(rank + 1));
        strategy->check("grad_ready", api.grad_ready(strategy->context(), &params3[i]));
      }
      strategy->check("finish_backward", api.finish_backward(strategy->context()));
    }
    result.metrics = strategy->services().metrics();
    for (const auto& e : strategy->services().events()) result.events.push_back(e.detail);
  } catch (const std::exception& e) {
    result.error = e.what();
  }
  for (auto& g : grads) result.grads.push_back(g);
  return result;
}

TEST(FusionStrategy, RanksWithDifferentGradientOrdersReduceTheSameTensors) {
  testing::TempDir store;
  for (const ParamValues& params : {ParamValues{}, ParamValues{{"fusion_threshold_mb", 0.0}}}) {
    RankResult r0, r1;
    std::filesystem::create_directories(store.path() / "0");
    std::thread t0([&] { r0 = runRank(0, store.path().string() + "/0", {0, 1, 2}, params); });
    std::thread t1([&] { r1 = runRank(1, store.path().string() + "/0", {2, 0, 1}, params); });
    t0.join();
    t1.join();
    ASSERT_EQ(r0.error, "");
    ASSERT_EQ(r1.error, "");
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(r0.grads[i], std::vector<float>(r0.grads[i].size(), 1.5f)) << kParamNames[i];
      EXPECT_EQ(r1.grads[i], r0.grads[i]) << kParamNames[i];
    }
    // Each step counts its rounds and what the cycle thread's CPU clock
    // advanced while they ran (some of it: every round makes system calls).
    for (const RankResult* r : {&r0, &r1}) {
      EXPECT_GE(r->metrics.count("fusion.cycles") ? r->metrics.at("fusion.cycles") : 0.0, 2.0);
      ASSERT_EQ(r->metrics.count("fusion.cycle_cpu_ms"), 1u);
      EXPECT_GT(r->metrics.at("fusion.cycle_cpu_ms"), 0.0);
      EXPECT_LT(r->metrics.at("fusion.cycle_cpu_ms"), 60000.0);
    }
    std::filesystem::remove_all(store.path() / "0");
  }
}

TEST(FusionStrategy, ATensorOneRankNeverSubmitsFailsTheStepNamingIt) {
  testing::TempDir store;
  RankResult r0, r1;
  const ParamValues params = {{"stall_timeout_s", 0.3}};
  std::thread t0([&] { r0 = runRank(0, store.path().string(), {0, 1, 2}, params, 1); });
  std::thread t1([&] { r1 = runRank(1, store.path().string(), {2, 0}, params, 1); });
  t0.join();
  t1.join();
  EXPECT_NE(r0.error.find("stalled for 0.3"), std::string::npos) << r0.error;
  EXPECT_NE(r0.error.find("tensor 'b' was submitted by 1 of 2 ranks; rank(s) 1 never submitted it"),
            std::string::npos)
      << r0.error;
  EXPECT_NE(r1.error.find("rank 0 gave up waiting"), std::string::npos) << r1.error;
}

// Autotune on two ranks: rank 0 scores and decides, rank 1 follows through
// the broadcast, so both train every step with the same threshold and cycle
// (their per-step sums agree), the gradients stay averaged, and tuning ends
// with the best point kept. One warm-up, 1-step windows, 3 scored points:
// 4 points x 5 windows = 20 steps, and one more that runs with the choice.
TEST(FusionStrategy, AutotuneRanksTrainWithRankZerosPointsAndKeepTheBest) {
  testing::TempDir store;
  const ParamValues params = {{"autotune", true},
                              {"autotune_warmup_samples", int64_t{1}},
                              {"autotune_steps_per_sample", int64_t{1}},
                              {"autotune_bayes_opt_max_samples", int64_t{2}}};
  RankResult r0, r1;
  std::thread t0([&] { r0 = runRank(0, store.path().string(), {0, 1, 2}, params, 21); });
  std::thread t1([&] { r1 = runRank(1, store.path().string(), {1, 2, 0}, params, 21); });
  t0.join();
  t1.join();
  ASSERT_EQ(r0.error, "");
  ASSERT_EQ(r1.error, "");
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(r0.grads[i], std::vector<float>(r0.grads[i].size(), 1.5f)) << kParamNames[i];
  for (const char* name : {"fusion.threshold_mb", "fusion.cycle_time_ms"}) {
    ASSERT_EQ(r0.metrics.count(name), 1u) << name;
    EXPECT_EQ(r0.metrics.at(name), r1.metrics.at(name)) << name;
  }
  // Rank 0 said what it tried and chose; the first points are Horovod's.
  std::string said;
  for (const std::string& e : r0.events) said += e + "\n";
  EXPECT_NE(said.find("warm-up at threshold 4.0 MiB, cycle 5.0 ms"), std::string::npos) << said;
  EXPECT_NE(said.find("point 1 threshold 4.0 MiB, cycle 5.0 ms"), std::string::npos) << said;
  EXPECT_NE(said.find("next threshold 32.0 MiB, cycle 50.0 ms"), std::string::npos) << said;
  EXPECT_NE(said.find("point 3 "), std::string::npos) << said;
  EXPECT_NE(said.find("; chose threshold"), std::string::npos) << said;
  for (const std::string& e : r1.events) EXPECT_EQ(e.find("autotune"), std::string::npos) << e;
}

TEST(FusionStrategy, AutotuneRefusesAThresholdOrCycleSetByHand) {
  testing::TempDir store;
  const ParamValues params = {{"autotune", true}, {"cycle_time_ms", 2.0}};
  RankResult r0, r1;
  std::thread t0([&] { r0 = runRank(0, store.path().string(), {0, 1, 2}, params, 0); });
  std::thread t1([&] { r1 = runRank(1, store.path().string(), {0, 1, 2}, params, 0); });
  t0.join();
  t1.join();
  for (const RankResult* r : {&r0, &r1}) {
    EXPECT_NE(r->error.find("autotune tunes fusion_threshold_mb and cycle_time_ms itself"), std::string::npos)
        << r->error;
  }
}

}  // namespace
}  // namespace dtb::core
