// The result store: schema versions, views that compute the field's
// metrics, and durability when the writer is killed mid-write.
#include "store/result_store.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <iterator>
#include <set>
#include <thread>

#include "sample_store.h"
#include "store/embedded_sql.h"
#include "store/read_only_query.h"
#include "store/schema_docs.h"
#include "temp_dir.h"

namespace dtb::core {
namespace {
namespace fs = std::filesystem;

// What turns a fresh store back into schema version 4 (shared with
// read_only_cli_test.sh).
std::string schemaVersion4Sql() {
  std::ifstream in(std::string(DTBENCH_SOURCE_DIR) + "/tests/support/schema_v4.sql");
  EXPECT_TRUE(in) << "tests/support/schema_v4.sql";
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class StoreTest : public ::testing::Test {
 protected:
  QueryResult query(const std::string& sql) { return runReadOnlyQuery(db_, sql); }
  double number(const std::string& sql) {
    QueryResult r = query(sql);
    EXPECT_EQ(r.rows.size(), 1u) << sql;
    if (r.rows.empty()) return NAN;
    const SqlValue& v = r.rows[0][0];
    if (const auto* i = std::get_if<int64_t>(&v)) return double(*i);
    if (const auto* d = std::get_if<double>(&v)) return *d;
    ADD_FAILURE() << "not a number: " << sql;
    return NAN;
  }

  testing::TempDir temp_;
  const fs::path& dir_ = temp_.path();
  const fs::path db_ = dir_ / "results.db";
};

TEST_F(StoreTest, NewStoreHasTheLatestSchemaInWalMode) {
  { ResultStore store(db_); }
  EXPECT_EQ(number("PRAGMA user_version"), ResultStore::schemaVersion());
  Database reader(db_, Database::Mode::kReadOnly);
  Statement mode = reader.prepare("PRAGMA journal_mode");
  ASSERT_TRUE(mode.step());
  EXPECT_EQ(mode.columnText(0), "wal");
  for (const char* view : {"run_summary", "repeat_stats", "scaling", "step_breakdown", "accuracy",
                           "collective_bandwidth", "memory_vs_theory", "traffic_vs_theory"}) {
    EXPECT_EQ(number("SELECT COUNT(*) FROM sqlite_schema WHERE type = 'view' AND name = '" +
                     std::string(view) + "'"),
              1)
        << view;
  }
}

TEST_F(StoreTest, ReopeningKeepsDataAndVersion) {
  testing::writeSampleStore(db_);
  const double runs = number("SELECT COUNT(*) FROM run");
  { ResultStore again(db_); }
  EXPECT_EQ(number("SELECT COUNT(*) FROM run"), runs);
  EXPECT_EQ(number("PRAGMA user_version"), ResultStore::schemaVersion());
}

TEST_F(StoreTest, UpgradesAVersionOneStoreKeepingItsData) {
  {  // A store as the first release wrote it: migration 1 only, one run.
    std::ifstream in(std::string(DTBENCH_SOURCE_DIR) + "/core/store/migrations/0001_initial.sql");
    std::stringstream sql;
    sql << in.rdbuf();
    Database db(db_, Database::Mode::kReadWrite);
    db.exec(sql.str());
    db.exec(
        "INSERT INTO experiment (id, name, matrix_path, matrix_toml, created_at, host, dtbench_version, "
        "git_commit) VALUES (1, 'old', 'm.toml', '', '2026-01-01', 'h', '0.1', 'x')");
    db.exec("PRAGMA user_version = 1");
  }
  { ResultStore store(db_); }
  EXPECT_EQ(number("PRAGMA user_version"), ResultStore::schemaVersion());
  EXPECT_EQ(number("SELECT COUNT(*) FROM experiment WHERE name = 'old'"), 1);
  EXPECT_EQ(number("SELECT COUNT(*) FROM pragma_table_info('epoch') WHERE name = 'step_bus_bytes'"), 1);
  EXPECT_EQ(number("SELECT COUNT(*) FROM pragma_table_info('memory') WHERE name = 'param_elements'"), 1);
  // Migration 8 edits run's CHECK in place: the new status must be in it.
  EXPECT_EQ(number("SELECT COUNT(*) FROM sqlite_schema WHERE name = 'run' AND sql LIKE '%''interrupted''%'"),
            1);
}

TEST_F(StoreTest, RefusesANewerSchema) {
  { ResultStore store(db_); }
  {
    Database raw(db_, Database::Mode::kReadWrite);
    raw.exec("PRAGMA user_version = 999");
  }
  try {
    ResultStore store(db_);
    FAIL() << "opened a newer schema";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 999 is newer than this dtbench"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find(db_.string()), std::string::npos);
  }
}

TEST_F(StoreTest, RefusesSomeoneElsesDatabaseAndNonDatabases) {
  {
    Database raw(db_, Database::Mode::kReadWrite);
    raw.exec("CREATE TABLE customers (id INTEGER)");
  }
  EXPECT_THROW(ResultStore{db_}, StoreError);
  std::ofstream(dir_ / "text.db") << "this is not a database, just text that is long enough to matter\n";
  try {
    ResultStore store(dir_ / "text.db");
    FAIL() << "opened a text file";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("text.db"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not a SQLite database"), std::string::npos) << e.what();
  }
}

// A store that another writer holds (for longer than the 10 s a connection
// waits) says so: it is not reported as a file that is no database.
TEST_F(StoreTest, ALockedStoreIsNotCalledANonDatabase) {
  { ResultStore store(db_); }
  Database holder(db_, Database::Mode::kReadWrite);
  holder.exec("BEGIN EXCLUSIVE");
  try {
    ResultStore store(db_);
    FAIL() << "opened a store another connection holds exclusively";
  } catch (const StoreError& e) {
    EXPECT_EQ(std::string(e.what()).find("not a SQLite database"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("locked"), std::string::npos) << e.what();
  }
  holder.exec("ROLLBACK");
}

// Columns are never dropped or renamed: the released schema's columns stay.
TEST_F(StoreTest, ReleasedColumnsAreStillThere) {
  { ResultStore store(db_); }
  std::ifstream released(std::string(DTBENCH_SOURCE_DIR) + "/tests/core/store/schema-v1.columns");
  ASSERT_TRUE(released);
  std::string table, column;
  int checked = 0;
  while (released >> table >> column) {
    EXPECT_EQ(number("SELECT COUNT(*) FROM pragma_table_info('" + table + "') WHERE name = '" + column + "'"),
              1)
        << table << "." << column << " was dropped or renamed";
    ++checked;
  }
  EXPECT_GT(checked, 50);
}

TEST_F(StoreTest, EveryStepPhaseIsAColumnAndAPhaseNewerThanTheStoreGetsOneOnOpen) {
  testing::writeSampleStore(db_);
  auto has = [&](const char* table, const char* column) {
    return number(std::string("SELECT COUNT(*) FROM pragma_table_info('") + table + "') WHERE name = '" +
                  column + "'") == 1;
  };
  for (const PhaseInfo& p : kPhases) {
    EXPECT_TRUE(has("step", p.column)) << p.column;
    EXPECT_EQ(has("epoch", p.column), p.scope == PhaseScope::kPerEpoch) << p.column;
    // Documented where it is defined.
    EXPECT_EQ(schemaDocs().column.at({"step", p.column}), p.meaning);
  }
  {  // A store from before a phase existed: its column is missing.
    Database raw(db_, Database::Mode::kReadWrite);
    raw.exec("ALTER TABLE step DROP COLUMN optimizer_wait_s");
  }
  ASSERT_FALSE(has("step", "optimizer_wait_s"));
  const double steps = number("SELECT COUNT(*) FROM step");
  { ResultStore again(db_); }
  EXPECT_TRUE(has("step", "optimizer_wait_s"));
  EXPECT_EQ(number("SELECT COUNT(*) FROM step"), steps) << "no row lost";
  EXPECT_EQ(number("SELECT COUNT(*) FROM step WHERE optimizer_wait_s IS NOT NULL"), 0) << "unknown, not zero";
}

TEST_F(StoreTest, RunParametersAreStoredWithTheirNumbers) {
  testing::writeSampleStore(db_);
  EXPECT_EQ(number("SELECT value_num FROM run_param WHERE run_id = 4 AND key = 'world_size'"), 2);
  EXPECT_EQ(std::get<std::string>(
                query("SELECT value FROM run_param WHERE run_id = 1 AND key = 'strategy'").rows[0][0]),
            "\"allreduce\"");
  EXPECT_EQ(number("SELECT COUNT(*) FROM environment WHERE run_id = 1"), 1);
  EXPECT_EQ(number("SELECT COUNT(*) FROM plugin_load WHERE run_id = 1"), 1);
}

TEST_F(StoreTest, RunSummaryLeavesTheWarmUpEpochOut) {
  testing::writeSampleStore(db_);
  // Run 2: allreduce, 1 rank, repeat 1 (jitter 1.0): steady 1000 samples/s.
  EXPECT_NEAR(number("SELECT samples_per_s FROM run_summary WHERE run_id = 2"), 1000, 1e-6);
  EXPECT_NEAR(number("SELECT ms_per_step FROM run_summary WHERE run_id = 2"), 32.0, 1e-6);
  EXPECT_NEAR(number("SELECT first_epoch_s / steady_epoch_s FROM run_summary WHERE run_id = 2"), 1.5, 1e-9);
  EXPECT_NEAR(number("SELECT final_test_accuracy FROM run_summary WHERE run_id = 2"), 0.93, 1e-9);
  EXPECT_EQ(std::get<std::string>(query("SELECT error FROM run_summary WHERE status = 'failed'").rows[0][0]),
            "rank 3 died: killed by signal 9 (SIGKILL)");
}

// run_figure holds each run's figures over its epochs, kept by triggers
// whoever writes the epochs: a migrated store gets them computed, and an
// epoch inserted, changed or deleted by hand moves them.
TEST_F(StoreTest, RunFiguresFollowTheEpochs) {
  testing::writeSampleStore(db_);
  {  // As an older dtbench left it: epochs without figures.
    Database raw(db_, Database::Mode::kReadWrite);
    raw.exec(schemaVersion4Sql());
  }
  { ResultStore store(db_); }  // migrations 5 to 8 compute them
  EXPECT_NEAR(number("SELECT samples_per_s FROM run_summary WHERE run_id = 2"), 1000, 1e-6);
  EXPECT_EQ(number("SELECT COUNT(*) FROM cell_figure WHERE config_key IS NULL OR noisy IS NULL"), 0)
      << "migration 7 fills the columns it adds";
  EXPECT_GT(number("SELECT COUNT(*) FROM scaling WHERE speedup IS NOT NULL"), 0);
  {  // Migration 8 added the status to run's CHECK constraint in place.
    Database raw(db_, Database::Mode::kReadWrite);
    EXPECT_NO_THROW(raw.exec("UPDATE run SET status = 'interrupted' WHERE id = 1"));
    EXPECT_THROW(raw.exec("UPDATE run SET status = 'lost' WHERE id = 1"), StoreError) << "the CHECK is gone";
    raw.exec("UPDATE run SET status = 'ok' WHERE id = 1");
  }
  EXPECT_EQ(number("SELECT COUNT(*) FROM run_figure"), number("SELECT COUNT(DISTINCT run_id) FROM epoch"));
  Database raw(db_, Database::Mode::kReadWrite);
  raw.exec("UPDATE epoch SET seconds = seconds * 2 WHERE run_id = 2");  // every epoch twice as long
  EXPECT_NEAR(number("SELECT samples_per_s FROM run_summary WHERE run_id = 2"), 500, 1e-6);
  raw.exec("DELETE FROM epoch WHERE run_id = 2 AND epoch > 1");  // one epoch left: it is the steady one
  EXPECT_EQ(number("SELECT epochs FROM run_summary WHERE run_id = 2"), 1);
  EXPECT_NEAR(number("SELECT final_test_accuracy FROM run_summary WHERE run_id = 2"), 0.91, 1e-9);
  raw.exec("DELETE FROM epoch WHERE run_id = 2");
  EXPECT_EQ(number("SELECT COUNT(*) FROM run_figure WHERE run_id = 2"), 0);
}

// cell_figure (what repeat_stats reads) always equals its figures computed
// afresh from the runs, whatever changes: a run failing, a run's epochs
// rewritten, a run deleted, a run moved to another cell.
TEST_F(StoreTest, CellFiguresFollowTheRuns) {
  testing::writeSampleStore(db_);
  // The same figures computed afresh, with the rules written out again: the
  // median of the middle one or two, spread over the median, noisy above 10 %
  // or when a repeat ran loaded.
  const std::string afresh =
      "SELECT *, CASE WHEN loaded_runs > 0 OR spread > 0.1 THEN 1 ELSE 0 END FROM (SELECT *, "
      "CASE WHEN repeats > 1 THEN (high - low) / median END AS spread FROM (SELECT experiment_id, cell, "
      "MIN(run_id), COUNT(*) AS repeats, AVG(CASE WHEN rn IN ((n + 1) / 2, (n + 2) / 2) THEN sps END) AS "
      "median, "
      "MIN(sps) AS low, MAX(sps) AS high, AVG(ms), AVG(acc), MIN(acc), MAX(acc), COALESCE(SUM(loaded), 0) AS "
      "loaded_runs, MIN(config_key), MIN(world_size) FROM (SELECT r.id AS run_id, r.experiment_id, r.cell, "
      "f.steady_samples / f.steady_seconds AS sps, 1000.0 * f.steady_seconds / f.steady_steps AS ms, "
      "f.final_test_accuracy AS acc, r.loaded, r.config_key, r.world_size, ROW_NUMBER() OVER (PARTITION BY "
      "r.experiment_id, r.cell ORDER BY f.steady_samples / f.steady_seconds) AS rn, COUNT(*) OVER (PARTITION "
      "BY "
      "r.experiment_id, r.cell) AS n FROM run r JOIN run_figure f ON f.run_id = r.id WHERE r.status = 'ok' "
      "AND f.steady_samples / f.steady_seconds IS NOT NULL) GROUP BY experiment_id, cell))";
  const auto differing = [&] {
    return number("SELECT COUNT(*) FROM (SELECT * FROM cell_figure EXCEPT " + afresh + ") ") +
           number("SELECT COUNT(*) FROM (" + afresh + " EXCEPT SELECT * FROM cell_figure)");
  };
  ASSERT_GT(number("SELECT COUNT(*) FROM cell_figure"), 0);
  EXPECT_EQ(differing(), 0);
  Database raw(db_, Database::Mode::kReadWrite);
  const double cell2 = number("SELECT MIN(id) FROM run WHERE cell = 2");
  raw.exec("UPDATE run SET status = 'failed' WHERE id = " + std::to_string(int64_t(cell2)));
  EXPECT_EQ(number("SELECT repeats FROM repeat_stats WHERE cell = 2"), 2);
  EXPECT_EQ(differing(), 0);
  raw.exec("UPDATE epoch SET seconds = seconds * 3 WHERE run_id IN (SELECT id FROM run WHERE cell = 2)");
  EXPECT_EQ(differing(), 0);
  raw.exec("UPDATE run SET loaded = 1 WHERE cell = 2");
  EXPECT_EQ(number("SELECT noisy FROM repeat_stats WHERE cell = 2"), 1);
  raw.exec("UPDATE run SET cell = 1, repeat = 99 WHERE id = (SELECT MAX(id) FROM run WHERE cell = 2)");
  EXPECT_EQ(differing(), 0);
  raw.exec("DELETE FROM epoch WHERE run_id IN (SELECT id FROM run WHERE cell = 1)");
  EXPECT_EQ(number("SELECT COUNT(*) FROM cell_figure WHERE cell = 1"), 0);
  EXPECT_EQ(differing(), 0);
  EXPECT_EQ(number("SELECT COUNT(*) FROM cell_figure_refresh"), 0) << "the queue is left empty";
}

TEST_F(StoreTest, RepeatStatsGiveMedianMinMax) {
  testing::writeSampleStore(db_);
  // Cell 2: allreduce at 4 ranks: 1000 x 4 x 0.8 x {0.95, 1.0, 1.1}.
  QueryResult r = query(
      "SELECT repeats, median_samples_per_s, min_samples_per_s, max_samples_per_s FROM repeat_stats "
      "WHERE cell = 2");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(std::get<int64_t>(r.rows[0][0]), 3);
  EXPECT_NEAR(std::get<double>(r.rows[0][1]), 3200, 1e-6);
  EXPECT_NEAR(std::get<double>(r.rows[0][2]), 3040, 1e-6);
  EXPECT_NEAR(std::get<double>(r.rows[0][3]), 3520, 1e-6);
}

TEST_F(StoreTest, ScalingGivesSpeedupAndEfficiencyAgainstTheSmallestWorld) {
  testing::writeSampleStore(db_);
  QueryResult r = query(
      "SELECT world_size, ref_world_size, speedup, efficiency FROM scaling WHERE strategy = 'bucketed' "
      "ORDER BY world_size");
  ASSERT_EQ(r.rows.size(), 3u);
  // Nothing to compare the reference world size with: NULL, not 1.
  EXPECT_TRUE(std::holds_alternative<std::monostate>(r.rows[0][2]));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(r.rows[0][3]));
  const double speedup[] = {1.0, 1.8, 3.2}, efficiency[] = {1.0, 0.9, 0.8};
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(std::get<int64_t>(r.rows[i][1]), 1);
    EXPECT_NEAR(std::get<double>(r.rows[i][2]), speedup[i], 1e-9);
    EXPECT_NEAR(std::get<double>(r.rows[i][3]), efficiency[i], 1e-9);
  }
}

TEST_F(StoreTest, StepBreakdownSumsToTheStep) {
  testing::writeSampleStore(db_);
  QueryResult r = query(
      "SELECT step_ms, data_ms + forward_ms + backward_ms + comm_exposed_ms + optimizer_ms + other_ms, "
      "comm_exposed_share, comm_hidden_share FROM step_breakdown WHERE run_id = 2");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_NEAR(std::get<double>(r.rows[0][0]), 32.0, 1e-9);
  EXPECT_NEAR(std::get<double>(r.rows[0][1]), 32.0, 1e-9);
  EXPECT_NEAR(std::get<double>(r.rows[0][2]), 0.1, 1e-9);
  // One rank moved nothing over the network: nothing was hidden either.
  EXPECT_TRUE(std::holds_alternative<std::monostate>(r.rows[0][3]));
  r = query("SELECT comm_hidden_share, comm_hidden_ms / comm_total_ms FROM step_breakdown WHERE run_id = 5");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_NEAR(std::get<double>(r.rows[0][0]), 0.6, 1e-9);  // (0.25 - 0.1) / 0.25 at two ranks
  EXPECT_NEAR(std::get<double>(r.rows[0][1]), 0.6, 1e-9);
}

// The sample's repeats spread by 15 % (jitter 0.95, 1.0, 1.1): every cell
// is noisy; the spread is (max - min) / median.
TEST_F(StoreTest, RepeatsThatDisagreeAreFlaggedNoisy) {
  testing::writeSampleStore(db_);
  QueryResult r = query("SELECT spread, noisy, loaded_runs FROM repeat_stats WHERE cell = 0");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_NEAR(std::get<double>(r.rows[0][0]), 0.15, 1e-9);
  EXPECT_EQ(std::get<int64_t>(r.rows[0][1]), 1);
  EXPECT_EQ(std::get<int64_t>(r.rows[0][2]), 0);
}

TEST_F(StoreTest, CollectiveBandwidthUsesTheNcclTestsFactors) {
  testing::writeSampleStore(db_);
  QueryResult r = query(
      "SELECT algbw_gbps, busbw_gbps, memcpy_gbps, of_memcpy FROM collective_bandwidth WHERE bytes = "
      "1000000");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_NEAR(std::get<double>(r.rows[0][0]), 10.0, 1e-9);
  EXPECT_NEAR(std::get<double>(r.rows[0][1]), 15.0, 1e-9);  // 2 (n-1)/n at n = 4
  EXPECT_NEAR(std::get<double>(r.rows[0][2]), 20.0, 1e-9);  // the run's memcpy reference
  EXPECT_NEAR(std::get<double>(r.rows[0][3]), 0.75, 1e-9);  // busbw / memcpy
}

// A writer killed at any moment loses at most the batch it was writing, and
// the file stays intact.
TEST_F(StoreTest, KillingTheWriterMidBatchLosesAtMostThatBatch) {
  constexpr int kEventsPerBatch = 50;
  int64_t runId = 0;
  {
    ResultStore store(db_);
    const int64_t experiment = store.addExperiment({"kill", "", "k.toml", ""});
    Cell cell;
    cell.values = {{"model", std::string("m")},      {"dataset", std::string("d")},
                   {"strategy", std::string("s")},   {"backend", std::string("b")},
                   {"world_size", int64_t{1}},       {"batch_size", int64_t{1}},
                   {"global_batch_size", int64_t{1}}};
    runId = store.addRun(experiment, cell, 0);
  }
  for (int attempt = 0; attempt < 3; ++attempt) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ResultStore store(db_);
      for (int batchNo = 0;; ++batchNo) {
        RecordBatch batch;
        for (int i = 0; i < kEventsPerBatch; ++i) {
          batch.events.push_back(
              {runId, 0, double(i), "tick", std::to_string(attempt) + "/" + std::to_string(batchNo)});
        }
        store.write(batch);
      }
    }
    usleep(150000 + 100000 * attempt);
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
  }
  EXPECT_EQ(std::get<std::string>(query("PRAGMA integrity_check").rows[0][0]), "ok");
  QueryResult partial = query("SELECT detail, COUNT(*) FROM event GROUP BY detail HAVING COUNT(*) != " +
                              std::to_string(kEventsPerBatch));
  EXPECT_TRUE(partial.rows.empty()) << "a batch survived in part";
  EXPECT_GT(number("SELECT COUNT(*) FROM event"), 0);
  ResultStore reopened(db_);  // and the store opens for writing again
}

TEST_F(StoreTest, ReadersRunWhileTheWriterWrites) {
  testing::writeSampleStore(db_);
  std::atomic<bool> stop{false};
  std::atomic<int> reads{0};
  std::vector<std::string> errors;
  std::mutex errorsMutex;
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      while (!stop) {
        try {
          runReadOnlyQuery(db_, "SELECT COUNT(*), SUM(samples_per_s) FROM run_summary");
          ++reads;
        } catch (const std::exception& e) {
          std::lock_guard lock(errorsMutex);
          errors.push_back(e.what());
        }
      }
    });
  }
  {
    ResultStore store(db_);
    for (int i = 0; i < 200; ++i) {
      RecordBatch batch;
      batch.events.push_back({1, 0, double(i), "tick", ""});
      store.write(batch);
    }
  }
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_TRUE(errors.empty()) << errors.front();
  EXPECT_GT(reads.load(), 0);
}

}  // namespace
}  // namespace dtb::core

namespace dtb::core {
namespace {

// One name per thing across the views (issue 17): every view says which
// experiment by name and id, the ranks of a run are `world_size`, and a
// model with a depth reads with it (resnet50) wherever a view has `model`.
TEST_F(StoreTest, EveryViewNamesThingsTheSameWay) {
  {
    ResultStore store(db_);
    const int64_t x = store.addExperiment({"names", "", "m.toml", ""});
    Cell c;
    c.index = 0;
    c.values = {{"model", std::string("resnet")},    {"dataset", std::string("synthetic")},
                {"strategy", std::string("zero")},   {"backend", std::string("gloo")},
                {"world_size", int64_t{2}},          {"batch_size", int64_t{8}},
                {"global_batch_size", int64_t{16}},  {"model.resnet.depth", int64_t{50}},
                {"strategy.zero.stage", int64_t{3}}, {"target_accuracy", 0.4}};
    const int64_t run = store.addRun(x, c, 0);
    store.startRun(run, {{"host", "t"}}, {});
    RecordBatch batch;
    for (int epoch = 1; epoch <= 2; ++epoch) {
      EpochRecord e;
      e.runId = run;
      e.epoch = epoch;
      e.steps = 10;
      e.samples = 160;
      e.seconds = 1;
      e.phases[Phase::kForward] = e.phases[Phase::kBackward] = 0.4;
      e.phases[Phase::kCommExposed] = e.phases[Phase::kCommTotal] = e.phases[Phase::kOptimizer] =
          e.phases[Phase::kData] = 0.05;
      e.stepBusBytes = 1000;
      e.testAccuracy = 0.5;
      e.trainLoss = 1;
      batch.epochs.push_back(e);
      StepRecord s;
      s.runId = run;
      s.step = epoch;
      s.epoch = epoch;
      s.seconds = 0.1;
      s.loss = 1;
      s.samples = 8;
      batch.steps.push_back(s);
    }
    batch.memory.push_back({run, 0, 4000, 4000, 8000, 0, 1 << 20, 1000, 1});
    store.write(batch);
    store.addRecovery({run, 1, "restart", "rank 1 was killed", 1.5, 1.6, 0, 1});
    store.finishRun(run, RunStatus::kOk);
  }
  for (const EmbeddedSql& view : reportViews()) {
    const std::string name = std::string(view.name).substr(std::string(view.name).find('_') + 1);
    const QueryResult r = query("SELECT * FROM " + name + " LIMIT 1");
    auto has = [&](const char* column) {
      return std::find(r.columns.begin(), r.columns.end(), column) != r.columns.end();
    };
    if (name != "run_model" && name != "run_figure_of_epochs") {
      EXPECT_TRUE(has("experiment") && has("experiment_id")) << name << " does not name its experiment";
    }
    EXPECT_FALSE(has("n")) << name;
    if (has("ranks") && name != "loss_per_step") {  // loss_per_step's ranks: those that reported the step
      EXPECT_TRUE(has("world_size")) << name;
    }
    if (has("model")) {
      const QueryResult models = query("SELECT DISTINCT model FROM " + name);
      ASSERT_EQ(models.rows.size(), 1u) << name << " has no row, or several models";
      EXPECT_EQ(std::get<std::string>(models.rows[0][0]), "resnet50") << name;
    }
  }
}

}  // namespace
}  // namespace dtb::core
