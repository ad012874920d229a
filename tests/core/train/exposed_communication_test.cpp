// Exposed communication is the time the training thread is blocked waiting
// for communication, not the time finish_backward takes: a strategy that
// only computes there (top-k selection, compression) shows none, at one rank
// and at two, and books that time as its optimizer phase; one that only
// waits there shows its wait — for a thread of its own (declared with
// comm_waited) or for a late peer (comm_wait). Each rank is a thread driving
// the host's TrainingStep over the test fixture `finish_backward`.
//
// Bounds are what the logic forces (a busy loop or sleep of N ms lasts at
// least N ms on the clock) or generous ratios on medians: the machine may be
// busy with other tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <thread>

#include "host/blocking_collective.h"
#include "plugin/loader.h"
#include "temp_dir.h"
#include "train/training_step.h"
#include "worker/connect.h"
#include "worker/rank_plugins.h"

namespace dtb::core {
namespace {

constexpr int kTimedSteps = 9;
constexpr uint32_t kBatch = 4;

// Where the fixture is built: apart from the test plugins every strategy
// test takes (its CMakeLists.txt says why).
std::string timingPluginDir() {
  return (std::filesystem::path(DTBENCH_TEST_PLUGIN_DIR).parent_path() / "plugins-timing").string();
}

// `kTimedSteps` steps of the fixture with `params` on one rank; each step's timing.
std::vector<StepTiming> trainRank(const std::string& backend, int rank, int world, const std::string& store,
                                  const ParamValues& params) {
  PluginLoader loader(SearchPath({DTBENCH_PLUGIN_DIR, DTBENCH_TEST_PLUGIN_DIR, timingPluginDir()}));
  RankPlugins plugins;
  plugins.openDataset(loader, {"tiny", {{"samples", int64_t{256}}}});
  PluginInstance& dataset = plugins.dataset();
  const auto& data = dataset.plugin().descriptor<dtb_dataset_plugin_v1_t>();
  dtb_dataset_info_t samples{};  // 1x2x2 samples of 4 classes
  samples.struct_size = sizeof(samples);
  dataset.check("info", data.info(dataset.context(), &samples));
  ModelOptions modelOptions;
  modelOptions.maxBatch = kBatch;
  modelOptions.seed = 7;
  plugins.createModel(loader, {"linear", {{"init_scale", 0.1}}}, samples, modelOptions);
  dtb_rendezvous_t rdv{};
  rdv.struct_size = sizeof(rdv);
  rdv.rank = rank;
  rdv.world_size = world;
  rdv.store_path = store.c_str();
  rdv.prefix = "x";
  rdv.bind_address = "127.0.0.1";
  rdv.timeout_ms = 20000;
  plugins.connect(connectBackend(loader, {backend, {}}, rdv, std::chrono::milliseconds(20000)));
  plugins.createOptimizer({"sgd", 0.1, 0.0, false, 0.0});
  plugins.createStrategy(loader, {"finish_backward", params}, 1);
  Communicator& comm = plugins.comm();
  TrainingStep step(plugins.model(), plugins.strategy(), plugins.optimizer(), &comm);

  std::vector<float> inputs(kBatch * 4);
  std::vector<int32_t> labels(kBatch);
  std::vector<uint64_t> indices(kBatch);
  std::vector<StepTiming> timings;
  for (int t = 0; t < kTimedSteps; ++t) {
    for (uint32_t i = 0; i < kBatch; ++i) indices[i] = (t * world + rank) * kBatch + i;
    dataset.check("read",
                  data.read(dataset.context(), 0, indices.data(), kBatch, inputs.data(), labels.data()));
    dtb_batch_t batch{};
    batch.struct_size = sizeof(batch);
    batch.size = kBatch;
    batch.inputs = {inputs.data(), inputs.size(), DTB_DTYPE_F32, {DTB_DEVICE_HOST, 0}, 4, {kBatch, 1, 2, 2}};
    batch.labels = {labels.data(), labels.size(), DTB_DTYPE_I32, {DTB_DEVICE_HOST, 0}, 1, {kBatch}};
    const dtb_step_info_t info{sizeof(dtb_step_info_t), static_cast<uint64_t>(t), 0, 0, 1};
    timings.push_back(step.run(batch, info).timing);
  }
  runCollective(comm, [&](dtb_request_t* r, std::string* e) { return comm.barrier(r, e); });
  return timings;
}

// Every rank of a world (one rank: the "single" backend), each a thread.
std::vector<std::vector<StepTiming>> trainWorld(int world, const ParamValues& params) {
  testing::TempDir store;
  std::vector<std::vector<StepTiming>> ranks(world);
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r) {
    threads.emplace_back([&, r] {
      try {
        ranks[r] = trainRank(world == 1 ? "single" : "gloo", r, world, store.path().string(), params);
      } catch (const std::exception& e) {
        ADD_FAILURE() << "rank " << r << ": " << e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  return ranks;
}

double median(const std::vector<StepTiming>& steps, const std::function<double(const StepTiming&)>& of) {
  std::vector<double> values;
  for (const StepTiming& s : steps) values.push_back(of(s));
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

double exposed(const StepTiming& t) { return t[Phase::kCommExposed]; }
double finishCompute(const StepTiming& t) { return t.finishComputeS; }

class ExposedCommunication : public ::testing::TestWithParam<int> {};

TEST_P(ExposedCommunication, ComputingInFinishBackwardIsTheOptimizerPhaseNotExposed) {
  const double busyS = 0.004;
  const auto ranks = trainWorld(GetParam(), {{"finish", std::string("compute")}, {"ms", int64_t{4}}});
  for (size_t r = 0; r < ranks.size(); ++r) {
    ASSERT_EQ(ranks[r].size(), static_cast<size_t>(kTimedSteps)) << "rank " << r;
    for (const StepTiming& t : ranks[r]) {
      // Before: the whole busy loop was exposed communication.
      EXPECT_LT(t[Phase::kCommExposed], 0.1 * busyS) << "rank " << r;
      EXPECT_GE(t.finishComputeS, busyS) << "rank " << r;
      EXPECT_GE(t[Phase::kOptimizer], t.finishComputeS) << "rank " << r;
    }
  }
}

TEST_P(ExposedCommunication, AWaitForTheStrategysOwnThreadIsExposed) {
  const double lateS = 0.02;  // the strategy's thread sleeps this long before it all-reduces
  const auto ranks = trainWorld(GetParam(), {{"finish", std::string("thread")}, {"ms", int64_t{20}}});
  for (size_t r = 0; r < ranks.size(); ++r) {
    ASSERT_EQ(ranks[r].size(), static_cast<size_t>(kTimedSteps)) << "rank " << r;
    // comm_waited declared the whole wait: at least the sleep, every step.
    for (const StepTiming& t : ranks[r]) EXPECT_GE(t[Phase::kCommExposed], lateS * 0.999) << "rank " << r;
    // And little of finish_backward is left as computation.
    EXPECT_LT(median(ranks[r], finishCompute), 0.1 * median(ranks[r], exposed)) << "rank " << r;
  }
}

std::string worldName(const ::testing::TestParamInfo<int>& param) {
  return "ranks_" + std::to_string(param.param);
}

INSTANTIATE_TEST_SUITE_P(Worlds, ExposedCommunication, ::testing::Values(1, 2), worldName);

TEST(ExposedCommunication, AWaitForALatePeerIsExposedAndThePeersComputeIsNot) {
  const double lateS = 0.02;  // rank 1 computes this long before it joins the all-reduce
  const auto ranks = trainWorld(2, {{"finish", std::string("peer")}, {"ms", int64_t{20}}});
  ASSERT_EQ(ranks[0].size(), static_cast<size_t>(kTimedSteps));
  ASSERT_EQ(ranks[1].size(), static_cast<size_t>(kTimedSteps));
  // Rank 0 waits in comm_wait for rank 1's computation, which is rank 1's
  // optimizer phase (every step: its busy loop lasts that long). Rank 1's
  // own wait is whatever rank 0 is late by (on a busy machine, ms: rank 0
  // is not scheduled at once); were its busy loop booked as exposed, every
  // step would show at least lateS.
  EXPECT_GT(median(ranks[0], exposed), 0.5 * lateS);
  EXPECT_LT(median(ranks[0], finishCompute), 0.5 * lateS);
  for (const StepTiming& t : ranks[1]) EXPECT_GE(t.finishComputeS, lateS);
  EXPECT_LT(median(ranks[1], exposed), lateS);
}

}  // namespace
}  // namespace dtb::core
