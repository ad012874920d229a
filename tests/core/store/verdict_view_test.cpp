// The view `verdict` on made-up experiments whose answer is known: the
// fastest configuration among those that reach the accuracy bar, "use X"
// only beyond noise, the faster ones that missed the bar named with their
// cost, and a "why" that never cites a phase inside its own spread.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "store/read_only_query.h"
#include "store/result_store.h"
#include "temp_dir.h"

namespace dtb::core {
namespace {

// One configuration at one world size: per repeat its samples/s, final test
// accuracy and exposed ms per step (compute is 5 ms a step throughout).
struct Config {
  std::string strategy;
  int worldSize;
  std::vector<double> samplesPerS;
  std::vector<double> accuracy;
  std::vector<double> exposedMs;
  bool loaded = false;
  std::optional<double> targetAccuracy;
  bool learnsInOneEpoch = false;  // epoch 1 reaches the final accuracy already (else half of it)
};

class VerdictView : public ::testing::Test {
 protected:
  void write(const std::vector<Config>& configs) {
    ResultStore store(db_);
    const int64_t x = store.addExperiment({"verdict", "", "m.toml", ""});
    int index = 0;
    for (const Config& m : configs) {
      Cell c;
      c.index = index++;
      c.values = {{"model", std::string("lenet")},
                  {"dataset", std::string("idx")},
                  {"strategy", m.strategy},
                  {"backend", std::string("gloo")},
                  {"world_size", int64_t{m.worldSize}},
                  {"batch_size", int64_t{32}},
                  {"global_batch_size", int64_t{32} * m.worldSize}};
      if (m.targetAccuracy) c.values["target_accuracy"] = *m.targetAccuracy;
      for (size_t repeat = 0; repeat < m.samplesPerS.size(); ++repeat) {
        const int64_t run = store.addRun(x, c, static_cast<int>(repeat), m.strategy);
        store.startRun(run, {{"host", "t"}}, {});
        if (m.loaded) store.recordLoad(run, {2, 0.9, 0.0, 2.0, "cc1plus 4.2 s", true});
        RecordBatch batch;
        for (int epoch = 1; epoch <= 2; ++epoch) {
          EpochRecord e;
          e.runId = run;
          e.epoch = epoch;
          e.steps = 100;
          e.samples = 100 * 32 * m.worldSize;
          e.seconds = static_cast<double>(e.samples) / m.samplesPerS[repeat];
          e.phases[Phase::kData] = 0;
          e.phases[Phase::kForward] = e.phases[Phase::kBackward] = 0.0025 * e.steps;
          e.phases[Phase::kCommExposed] = m.exposedMs[repeat] / 1000 * e.steps;
          e.phases[Phase::kOptimizer] = 0.001 * e.steps;
          e.phases[Phase::kCommTotal] = e.phases[Phase::kCommExposed];
          e.stepBusBytes = 1e6;
          e.testAccuracy = epoch == 2 || m.learnsInOneEpoch ? m.accuracy[repeat] : m.accuracy[repeat] / 2;
          e.trainLoss = 0.5;
          batch.epochs.push_back(e);
        }
        batch.memory.push_back({run, 0, 4000, 4000, 8000, 0, int64_t{100} << 20, 1000, 2});
        store.write(batch);
        store.finishRun(run, RunStatus::kOk);
      }
    }
  }

  // The view's `column` at `worldSize`, as text ("" for NULL).
  std::string at(int worldSize, const std::string& column) {
    const QueryResult r = runReadOnlyQuery(
        db_, "SELECT " + column + " FROM verdict WHERE world_size = " + std::to_string(worldSize));
    EXPECT_EQ(r.rows.size(), 1u) << column;
    if (r.rows.empty()) return "?";
    const SqlValue& v = r.rows[0][0];
    if (const auto* s = std::get_if<std::string>(&v)) return *s;
    if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
    if (const auto* d = std::get_if<double>(&v)) return std::to_string(*d);
    return "";
  }

  testing::TempDir temp_;
  std::filesystem::path db_ = temp_.path() / "v.db";
};

TEST_F(VerdictView, AFasterConfigurationThatLearnedLessIsNeverBest) {
  // The case: topk 0.2 % faster than bucketed, six points below it.
  write({{"allreduce", 2, {1000, 990, 1010}, {0.92, 0.92, 0.92}, {10, 10, 10}},
         {"bucketed", 2, {1500, 1480, 1520}, {0.92, 0.92, 0.921}, {2, 2, 2}},
         {"topk", 2, {1503, 1490, 1530}, {0.86, 0.86, 0.861}, {1.5, 1.5, 1.5}}});
  EXPECT_EQ(at(2, "best"), "bucketed");
  EXPECT_EQ(at(2, "decision"), "use bucketed");
  EXPECT_EQ(at(2, "missed"), "topk: +0.2 % samples/s, -6.0 pt accuracy");
  // The bar: bucketed's 0.9203 less the 1-point tolerance (its own spread is smaller).
  EXPECT_NEAR(std::stod(at(2, "accuracy_bar")), 0.92033 - 0.01, 1e-4);
  EXPECT_EQ(at(2, "why"), "exposed communication: 2.00 vs 10.00 ms per step; moves 1 vs 1 MB per step");
}

TEST_F(VerdictView, AMarginInsideTheNoiseIsATieThatNamesTheTied) {
  write({{"allreduce", 2, {1000, 960, 1040}, {0.9, 0.9, 0.9}, {3, 2, 2.5}},
         {"bucketed", 2, {1010, 970, 1050}, {0.9, 0.9, 0.9}, {2, 2.2, 2.1}},
         {"fusion", 2, {1005, 980, 1030}, {0.9, 0.9, 0.9}, {2.5, 2.4, 2.6}},
         {"zero", 2, {500, 490, 510}, {0.9, 0.9, 0.9}, {9, 9, 9}}});
  EXPECT_EQ(at(2, "beyond_noise"), "0");
  EXPECT_EQ(at(2, "decision"),
            "tie within noise: allreduce, bucketed, fusion");  // by name: the same every rerun
  EXPECT_EQ(at(2, "tied"), "allreduce, fusion");
  // Exposed 2.0-2.2 against fusion's 2.4-2.6: apart, but compute is equal: the only phase cited.
  EXPECT_EQ(at(2, "why").rfind("exposed communication: 2.10 vs 2.50 ms per step", 0), 0u) << at(2, "why");
}

TEST_F(VerdictView, AWideThirdConfigurationOverlappingTheBestIsATie) {
  // The runner-up (by median) lies below the best's range; fusion, slower
  // by median but spread wide, reaches into it.
  write({{"bucketed", 2, {1400, 1500, 1600}, {0.9, 0.9, 0.9}, {2, 2, 2}},
         {"allreduce", 2, {1290, 1300, 1310}, {0.9, 0.9, 0.9}, {9, 9, 9}},
         {"fusion", 2, {1000, 1200, 1450}, {0.9, 0.9, 0.9}, {5, 5, 5}}});
  EXPECT_EQ(at(2, "runner_up"), "allreduce");
  EXPECT_EQ(at(2, "beyond_noise"), "0");
  EXPECT_EQ(at(2, "decision"), "tie within noise: bucketed, fusion");
}

TEST_F(VerdictView, APhaseInsideItsOwnSpreadIsNotTheReason) {
  // bucketed is faster beyond noise, but its exposed time overlaps allreduce's.
  write({{"allreduce", 2, {1000, 990, 1010}, {0.9, 0.9, 0.9}, {2, 3, 4}},
         {"bucketed", 2, {1500, 1480, 1520}, {0.9, 0.9, 0.9}, {1.5, 2.5, 3.5}}});
  EXPECT_EQ(at(2, "decision"), "use bucketed");
  EXPECT_EQ(at(2, "why"), "no phase differs beyond its repeats' spread; moves 1 vs 1 MB per step");
}

TEST_F(VerdictView, LoadedRunsAreInconclusiveAndOneRepeatIsUnknown) {
  write({{"allreduce", 2, {1000, 990, 1010}, {0.9, 0.9, 0.9}, {10, 10, 10}, true},
         {"bucketed", 2, {1500, 1480, 1520}, {0.9, 0.9, 0.9}, {2, 2, 2}},
         {"allreduce", 4, {1000}, {0.9}, {10}},
         {"bucketed", 4, {1500}, {0.9}, {2}}});
  EXPECT_EQ(at(2, "beyond_noise"), "1");
  EXPECT_EQ(at(2, "decision"), "inconclusive: loaded runs (allreduce 3/3)");
  EXPECT_EQ(at(4, "beyond_noise"), "");
  EXPECT_EQ(at(4, "decision"), "bucketed fastest, noise unknown (one repeat)");
  EXPECT_EQ(at(4, "why").find("(noise unknown)") != std::string::npos, true) << at(4, "why");
}

TEST_F(VerdictView, ATargetThatNobodyReachesNamesNoBest) {
  write({{"allreduce", 2, {1000, 990}, {0.90, 0.90}, {10, 10}, false, 0.95},
         {"bucketed", 2, {1500, 1480}, {0.91, 0.91}, {2, 2}, false, 0.95}});
  EXPECT_EQ(at(2, "best"), "");
  EXPECT_EQ(at(2, "decision"), "no configuration reached the target accuracy 0.95 (the best reached 0.9100)");
  EXPECT_EQ(at(2, "missed"), "bucketed: test accuracy 0.9100; allreduce: test accuracy 0.9000");
}

TEST_F(VerdictView, WithATargetTheFirstToReachItBreaksAThroughputTie) {
  // Samples/s tied within noise; allreduce, the faster by median, reaches
  // 0.95 after one epoch (6.3 s), bucketed only after two (12.7 s).
  write({{"allreduce", 2, {1030, 1000, 1040}, {0.96, 0.96, 0.96}, {2, 2, 2}, false, 0.95, true},
         {"bucketed", 2, {1010, 990, 1025}, {0.96, 0.96, 0.96}, {2, 2, 2}, false, 0.95}});
  EXPECT_EQ(at(2, "best"), "allreduce");
  EXPECT_EQ(at(2, "beyond_noise"), "0");
  EXPECT_EQ(at(2, "decision"),
            "use allreduce: reaches the target accuracy first (6.26 vs 12.7 s); samples/s tied within noise");
  // The runner-up gets there first: the tie stands, and says so (best stays the fastest by median).
  std::filesystem::remove(db_);
  write({{"allreduce", 2, {1030, 1000, 1040}, {0.96, 0.96, 0.96}, {2, 2, 2}, false, 0.95},
         {"bucketed", 2, {1010, 990, 1025}, {0.96, 0.96, 0.96}, {2, 2, 2}, false, 0.95, true}});
  EXPECT_EQ(at(2, "best"), "allreduce");
  EXPECT_EQ(
      at(2, "decision"),
      "tie within noise: allreduce, bucketed; bucketed reaches the target accuracy first (6.35 vs 12.5 s)");
  // Both reach it in the same epoch: a tie stays a tie.
  std::filesystem::remove(db_);
  write({{"allreduce", 2, {1030, 1000, 1040}, {0.96, 0.96, 0.96}, {2, 2, 2}, false, 0.95},
         {"bucketed", 2, {1010, 990, 1025}, {0.96, 0.96, 0.96}, {2, 2, 2}, false, 0.95}});
  EXPECT_EQ(at(2, "decision"), "tie within noise: allreduce, bucketed");
}

TEST_F(VerdictView, TheOnlyConfigurationThatReachedTheBarIsUsed) {
  write({{"allreduce", 2, {1000, 990, 1010}, {0.92, 0.92, 0.92}, {10, 10, 10}},
         {"topk", 2, {1500, 1480, 1520}, {0.80, 0.80, 0.80}, {1, 1, 1}}});
  EXPECT_EQ(at(2, "decision"), "use allreduce (the only configuration that reached the accuracy)");
  EXPECT_EQ(at(2, "missed"), "topk: +50.0 % samples/s, -12.0 pt accuracy");
}

}  // namespace
}  // namespace dtb::core
