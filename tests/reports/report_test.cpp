// The report's data and drawing: configurations labelled by what differs,
// key figures and comparisons from the sample store's known numbers, the
// SVG charts' scales and escaping, and both output formats.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "report/report_charts.h"
#include "report/report_data.h"
#include "report/report_format.h"
#include "report/report_tables.h"
#include "report/svg_chart.h"
#include "sample_store.h"
#include "store/database.h"
#include "store/result_store.h"
#include "temp_dir.h"

namespace dtb::core {
namespace {

class ReportTest : public ::testing::Test {
 protected:
  std::filesystem::path db() const { return dir_.path() / "r.db"; }
  dtb::testing::TempDir dir_;
};

TEST_F(ReportTest, LoadsTheSampleStoresKnownFigures) {
  dtb::testing::writeSampleStore(db());
  const ReportData data = loadReport(ReportQueries(db()), {1});
  ASSERT_EQ(data.experiments.size(), 1u);
  EXPECT_EQ(data.experiments[0].name, "sample");
  EXPECT_EQ(data.experiments[0].failed, 1);
  // Two configurations (allreduce, bucketed), labelled by strategy alone.
  ASSERT_EQ(data.configs.size(), 2u);
  EXPECT_EQ(data.configs[0].label, "allreduce");
  EXPECT_EQ(data.configs[1].label, "bucketed");
  // Medians are exactly base x world x efficiency; the ideal line is linear.
  int checked = 0;
  for (const ScalingRow& r : data.scaling) {
    if (data.config(1, r.key)->label != "bucketed" || r.world != 4) continue;
    EXPECT_NEAR(r.samplesPerS, 1100 * 4 * 0.8, 1e-6);
    EXPECT_NEAR(r.ideal, 1100 * 4, 1e-6);
    EXPECT_NEAR(r.efficiency, 0.8, 1e-9);
    EXPECT_NEAR(r.low, 1100 * 4 * 0.8 * 0.95, 1e-6);
    EXPECT_NEAR(r.high, 1100 * 4 * 0.8 * 1.1, 1e-6);
    ++checked;
  }
  EXPECT_EQ(checked, 1);
  EXPECT_EQ(data.breakdown.size(), 6u);
  EXPECT_EQ(data.accuracy.size(), 6u * 3);  // configurations x worlds x epochs
  EXPECT_EQ(data.memory.size(), 6u);
  EXPECT_EQ(data.bandwidth.size(), 2u);
  EXPECT_NEAR(data.bandwidth[1].memcpy, 20.0, 1e-9);
  // The store's efficiency is NULL at 1 rank; the chart starts each line there at 100 %.
  const std::vector<LineChart> scaling = scalingCharts(data, 1, data.configs[0].model);
  ASSERT_EQ(scaling.size(), 2u);
  ASSERT_FALSE(scaling[1].series.empty());
  ASSERT_EQ(scaling[1].series[0].points.size(), 3u);
  EXPECT_EQ(scaling[1].series[0].points[0].x, 1.0);
  EXPECT_EQ(scaling[1].series[0].points[0].y, 1.0);
  EXPECT_NEAR(scaling[1].series[0].points[2].y, 0.8, 1e-9);
  // The repeats spread by 15 %: every measured key figure says it is noisy,
  // and why; the failed cell (no repeat) has nothing to say.
  const ReportTable table = keyFigureTable(data, 1, data.configs[0].model);
  ASSERT_EQ(table.rows.size(), 7u);
  EXPECT_EQ(table.headers.back(), "noise");
  for (const auto& row : table.rows) {
    EXPECT_EQ(row.back(), row[2] == "0" ? "" : "noisy: 15 % spread") << row[0] << " x" << row[1];
  }
}

TEST_F(ReportTest, ComparisonCallsAChangeOnlyBeyondTheRepeatNoise) {
  dtb::testing::writeSampleStore(db(), 1.0);   // experiment 1
  dtb::testing::writeSampleStore(db(), 1.5);   // 2: 50 % faster, far beyond the +-10 % jitter
  dtb::testing::writeSampleStore(db(), 1.03);  // 3: 3 % faster, inside it
  const ReportQueries queries(db());
  const ReportData data = loadReport(queries, {1, 2, 3});
  const auto faster = loadComparison(queries, 1, 2, data);
  ASSERT_EQ(faster.size(), 6u);
  for (const ComparisonRow& r : faster) {
    EXPECT_EQ(r.verdict, "faster") << r.label << " x" << r.world;
    EXPECT_NEAR(r.change, 0.5, 1e-9);
    EXPECT_NEAR(r.noise, 0.15 / 1.0, 1e-9);  // (1.1 - 0.95) / 1.0
  }
  for (const ComparisonRow& r : loadComparison(queries, 1, 3, data)) EXPECT_EQ(r.verdict, "within noise");
  for (const ComparisonRow& r : loadComparison(queries, 2, 1, data)) EXPECT_EQ(r.verdict, "slower");
}

TEST_F(ReportTest, LabelsNameOnlyTheParametersThatDiffer) {
  {
    ResultStore store(db());
    const int64_t x = store.addExperiment({"labels", "", "m.toml", ""});
    auto cell = [](int index, const std::string& strategy, const std::string& backend, int64_t cap) {
      Cell c;
      c.index = index;
      c.values = {{"model", std::string("lenet")},
                  {"dataset", std::string("idx")},
                  {"strategy", strategy},
                  {"backend", backend},
                  {"world_size", int64_t{2}},
                  {"batch_size", int64_t{32}},
                  {"global_batch_size", int64_t{64}},
                  {"seed", int64_t{1}}};
      if (strategy == "bucketed") c.values["strategy.bucketed.bucket_cap_mb"] = cap;
      return c;
    };
    store.addRun(x, cell(0, "allreduce", "gloo", 0), 0);
    store.addRun(x, cell(1, "bucketed", "gloo", 1), 0);
    store.addRun(x, cell(2, "bucketed", "mpi", 25), 0);
  }
  const ReportData data = loadReport(ReportQueries(db()), {1});
  std::vector<std::string> labels;
  for (const ReportConfig& c : data.configs) labels.push_back(c.label);
  std::sort(labels.begin(), labels.end());
  EXPECT_EQ(labels, (std::vector<std::string>{"allreduce gloo", "bucketed gloo bucket_cap_mb=1",
                                              "bucketed mpi bucket_cap_mb=25"}));
}

TEST_F(ReportTest, TheUsersOwnQueryReplacesTheBuiltInOne) {
  dtb::testing::writeSampleStore(db());
  const std::filesystem::path mine = dir_.path() / "sql";
  std::filesystem::create_directory(mine);
  std::ofstream(mine / "20_scaling.sql") << "SELECT 1 AS experiment_id, 'k' AS config_key, 3 AS world_size";
  const ReportQueries queries(db(), mine);
  EXPECT_EQ(queries.text("scaling").rfind("SELECT 1 AS", 0), 0u);
  EXPECT_NE(queries.text("memory").find("FROM memory"), std::string::npos);  // not overridden
  EXPECT_EQ(queries.run("scaling", {}).rows.size(), 1u);
}

// An experiment of LeNet runs at 2 ranks whose steps are made up of known
// phases (ms per step): each configuration's repeats run at `thr` samples/s
// times 0.98, 1.0 and 1.02.
struct MadeUpConfig {
  std::string strategy;
  double samplesPerS, exposedMs, computeMs;
  int repeats = 3;
  int64_t peakRss = int64_t{100} << 20;
  int worldSize = 2;
  double stepBusBytes = 1e6;
};

void writeVerdictStore(const std::filesystem::path& db, const std::vector<MadeUpConfig>& configs) {
  ResultStore store(db);
  const int64_t x = store.addExperiment({"verdict", "", "m.toml", ""});
  int index = 0;
  for (const MadeUpConfig& m : configs) {
    Cell c;
    c.index = index++;
    c.values = {{"model", std::string("lenet")},
                {"dataset", std::string("idx")},
                {"strategy", m.strategy},
                {"backend", std::string("gloo")},
                {"world_size", int64_t{m.worldSize}},
                {"batch_size", int64_t{32}},
                {"global_batch_size", int64_t{32} * m.worldSize}};
    for (int repeat = 0; repeat < m.repeats; ++repeat) {
      const int64_t run = store.addRun(x, c, repeat);
      store.startRun(run, {{"host", "t"}}, {});
      const double thr = m.samplesPerS * (repeat == 0 ? 1.0 : repeat == 1 ? 0.98 : 1.02);
      RecordBatch batch;
      EpochRecord e;
      e.runId = run;
      e.epoch = 1;
      e.steps = 100;
      e.samples = 100 * 32 * m.worldSize;
      e.seconds = e.samples / thr;
      const double step = e.seconds / e.steps;
      e.phases[Phase::kData] = 0;
      e.phases[Phase::kForward] = e.phases[Phase::kBackward] = m.computeMs / 2000 * e.steps;
      e.phases[Phase::kCommExposed] = m.exposedMs / 1000 * e.steps;
      e.phases[Phase::kOptimizer] = std::max(step - (m.computeMs + m.exposedMs) / 1000, 0.0) * e.steps;
      e.phases[Phase::kCommTotal] = e.phases[Phase::kCommExposed];
      e.stepBusBytes = m.stepBusBytes;
      e.testAccuracy = 0.9;
      e.trainLoss = 0.5;
      batch.epochs.push_back(e);
      batch.memory.push_back({run, 0, 4000, 4000, 8000, 0, m.peakRss, 1000, 2});
      store.write(batch);
      store.finishRun(run, RunStatus::kOk);
    }
  }
}

TEST_F(ReportTest, TheVerdictNamesTheFastestConfigurationItsMarginAndWhy) {
  // bucketed waits 2 ms a step for communication where allreduce waits 10,
  // with the same compute; fusion is slowest. Repeats spread +-2 %: the 25 %
  // margin lies beyond them.
  writeVerdictStore(db(), {{"allreduce", 4000, 10, 5},
                           {"bucketed", 5000, 2, 5, 3, int64_t{200} << 20},
                           {"fusion", 2500, 12, 8},
                           {"zero", 900, 1, 1, 1, int64_t{100} << 20, 4}});
  const ReportQueries queries(db());
  const ReportData data = loadReport(queries, {1});
  ASSERT_EQ(data.verdicts.size(), 2u);
  const VerdictRow& v = data.verdicts[0];
  EXPECT_EQ(v.model, "lenet");
  EXPECT_EQ(v.world, 2);
  EXPECT_EQ(v.configs, 3);
  EXPECT_EQ(data.config(1, v.bestKey)->label, "bucketed");
  EXPECT_EQ(data.config(1, v.runnerUpKey)->label, "allreduce");
  EXPECT_NEAR(v.samplesPerS, 5000, 1e-6);
  EXPECT_NEAR(v.margin, 0.25, 1e-9);
  EXPECT_NEAR(v.marginOverSlowest, 1.0, 1e-9);
  ASSERT_TRUE(v.beyondNoise.has_value());
  EXPECT_TRUE(*v.beyondNoise);
  EXPECT_EQ(v.why,
            "exposed communication: 2.00 vs 10.00 ms per step; moves 1 vs 1 MB per step; "
            "peak RSS 200 vs 100 MiB per rank");
  // 4 ranks: one configuration, one repeat: nothing to compare, noise unknown.
  const VerdictRow& alone = data.verdicts[1];
  EXPECT_EQ(alone.world, 4);
  EXPECT_EQ(alone.configs, 1);
  EXPECT_TRUE(alone.runnerUpKey.empty());
  EXPECT_FALSE(alone.beyondNoise.has_value());
  EXPECT_EQ(alone.why, "the only configuration measured at this world size");

  // The table gives the figures, in both formats, at the top of the report,
  // under the headline: use bucketed (beyond noise, nothing loaded), why.
  const ReportTable t = verdictTable(data, 1);
  ASSERT_EQ(t.rows.size(), 2u);
  ASSERT_EQ(t.rows[0].size(), 9u);
  EXPECT_EQ(std::vector<std::string>(t.rows[0].begin(), t.rows[0].begin() + 7),
            (std::vector<std::string>{"lenet / idx", "2", "bucketed", "5,000.0", "+25.0 % (allreduce)",
                                      "+100.0 %", "yes: the repeats do not overlap"}));
  const std::vector<VerdictHeadline> headlines = verdictHeadlines(data, 1);
  ASSERT_EQ(headlines.size(), 2u);
  EXPECT_EQ(headlines[0].where, "lenet / idx, 2 ranks");
  EXPECT_EQ(headlines[0].decision, "use bucketed");
  EXPECT_EQ(headlines[0].why, v.why);
  EXPECT_EQ(headlines[0].missed, "");
  const ReportInput input{"r.db", &data, std::nullopt, nullptr};
  const std::string md = renderMarkdown(input), html = renderHtml(input);
  EXPECT_LT(md.find("## Verdict"), md.find("## verdict (experiment 1)")) << md;
  EXPECT_NE(md.find("- **lenet / idx, 2 ranks: use bucketed**  \n  exposed communication: 2.00 vs 10.00"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| lenet / idx | 2 | bucketed | 5,000.0 | +25.0 % (allreduce) |"), std::string::npos)
      << md;
  EXPECT_LT(html.find("<h2>Verdict"),
            html.find("<strong class=\"decision\">lenet / idx, 2 ranks: use bucketed"));
  EXPECT_LT(html.find("<strong class=\"decision\">lenet / idx, 2 ranks: use bucketed"),
            html.find("class=\"experiment\""));
}

// The view's decision heads the verdict, then why, then what missed the
// accuracy (here from the user's copy of the query, as a view with those
// columns gives them); the figures table shows the accuracy bar.
TEST_F(ReportTest, TheVerdictsHeadlineIsItsDecisionThenWhyThenWhatMissedTheAccuracy) {
  writeVerdictStore(db(), {{"allreduce", 4000, 10, 5}, {"bucketed", 4100, 8, 5}});
  const std::filesystem::path mine = dir_.path() / "sql";
  std::filesystem::create_directory(mine);
  std::ofstream(mine / "15_verdict.sql")
      << "SELECT experiment_id, model, dataset, world_size, configs, repeats, best_config_key, "
         "runner_up_config_key, why, samples_per_s, margin, margin_over_slowest, beyond_noise, "
         "'tie within noise: bucketed, allreduce' AS decision, "
         "'topk: +3 % samples/s, -6.1 pt accuracy' AS missed, 0.95 AS accuracy_bar, "
         "0.95 AS target_accuracy, 0.9 AS best_test_accuracy "
         "FROM verdict WHERE experiment_id IN ({experiments})";
  const ReportData data = loadReport(ReportQueries(db(), mine), {1});
  ASSERT_EQ(data.verdicts.size(), 1u);
  EXPECT_EQ(data.verdicts[0].decision, "tie within noise: bucketed, allreduce");
  EXPECT_NEAR(data.verdicts[0].accuracyBar, 0.95, 1e-12);
  const ReportInput input{"r.db", &data, std::nullopt, nullptr};
  const std::string md = renderMarkdown(input), html = renderHtml(input);
  const std::string why = data.verdicts[0].why;
  ASSERT_FALSE(why.empty());
  EXPECT_NE(md.find("- **lenet / idx, 2 ranks: tie within noise: bucketed, allreduce**  \n  " + why +
                    "  \n  missed the accuracy: topk: +3 % samples/s, -6.1 pt accuracy\n"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("use bucketed"), std::string::npos) << "the old headline beside the view's decision";
  EXPECT_NE(md.find("| no: within the repeats' spread | 0.9000 | 0.9500 |"), std::string::npos) << md;
  const size_t headline = html.find("<strong class=\"decision\">lenet / idx, 2 ranks: tie within noise");
  ASSERT_NE(headline, std::string::npos) << html;
  EXPECT_LT(headline, html.find("<span class=\"why\">" + xmlEscape(why) + "</span>"));
  EXPECT_LT(html.find("<span class=\"why\">"),
            html.find("<span class=\"missed\">missed the accuracy: topk: +3 % samples/s, -6.1 pt accuracy"));
  EXPECT_LT(html.find("<span class=\"missed\">"), html.find("class=\"experiment\""));
}

TEST_F(ReportTest, AMarginInsideTheRepeatsSpreadIsNotBeyondNoise) {
  // 3 % apart with repeats spread +-2 %: the ranges overlap.
  writeVerdictStore(db(), {{"allreduce", 1000, 5, 5}, {"bucketed", 1030, 4, 5}});
  const ReportData data = loadReport(ReportQueries(db()), {1});
  ASSERT_EQ(data.verdicts.size(), 1u);
  ASSERT_TRUE(data.verdicts[0].beyondNoise.has_value());
  EXPECT_FALSE(*data.verdicts[0].beyondNoise);
  EXPECT_EQ(verdictTable(data, 1).rows[0][6], "no: within the repeats' spread");
  // With one repeat of the runner-up, nobody knows.
  std::filesystem::remove(db());
  writeVerdictStore(db(), {{"allreduce", 1000, 5, 5, 1}, {"bucketed", 1500, 4, 5}});
  const ReportData single = loadReport(ReportQueries(db()), {1});
  EXPECT_FALSE(single.verdicts.at(0).beyondNoise.has_value());
  EXPECT_EQ(verdictTable(single, 1).rows[0][6], "unknown (one repeat)");
}

TEST(SvgChart, LogAxesTickOnPowersAndTextIsEscaped) {
  LineChart chart{
      "a <b> & c", {"bytes", 2, TickFormat::kBytes, false}, {"GB/s", 0, TickFormat::kNumber, true}, {}, ""};
  chart.series.push_back({"gloo \"x\"", {{4096, 1}, {65536, 2}, {1 << 20, 3}}});
  const std::string svg = renderLineChart(chart);
  EXPECT_NE(svg.find("a &lt;b&gt; &amp; c"), std::string::npos);
  EXPECT_NE(svg.find("gloo &quot;x&quot;"), std::string::npos);
  for (const char* tick : {">4K<", ">16K<", ">64K<", ">256K<", ">1M<"})
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  EXPECT_EQ(std::count(svg.begin(), svg.end(), '\n') > 5, true);
  size_t marks = 0;
  for (size_t at = svg.find("class=\"mark\""); at != std::string::npos;
       at = svg.find("class=\"mark\"", at + 1))
    ++marks;
  EXPECT_EQ(marks, 3u);
  EXPECT_EQ(formatTick(1234567, TickFormat::kNumber), "1.23457M");
  EXPECT_EQ(formatTick(0.75, TickFormat::kPercent), "75%");
}

TEST(SvgChart, StackedBarsStackEachLayerOnTheLast) {
  StackedBarChart chart{"t", "ms", {"a", "b"}, {"forward", "backward"}, {{1, 2}, {3, 4}}};
  const std::string svg = renderStackedBars(chart);
  size_t rects = 0;
  for (size_t at = svg.find("<rect class=\"mark\""); at != std::string::npos;
       at = svg.find("<rect class=\"mark\"", at + 1))
    ++rects;
  EXPECT_EQ(rects, 4u);
  EXPECT_NE(svg.find("b — backward: 4"), std::string::npos);
}

TEST_F(ReportTest, BothFormatsCarryTheKeyFiguresAndTheComparison) {
  dtb::testing::writeSampleStore(db(), 1.0);
  dtb::testing::writeSampleStore(db(), 1.5);
  const ReportQueries queries(db());
  const ReportData data = loadReport(queries, {1, 2});
  const auto comparison = loadComparison(queries, 1, 2, data);
  const ReportInput input{"r.db", &data, std::make_pair(int64_t{1}, int64_t{2}), &comparison};
  const std::string md = renderMarkdown(input);
  // bucketed at 4 ranks: 1100 x 4 x 0.8 = 3520 (experiment 1), x 1.5 = 5280 (2), repeats +10 % / -5 %
  EXPECT_NE(md.find("| bucketed | 4 | 3 | 3,520.0 | [3,344.0 – 3,872.0] |"), std::string::npos) << md;
  EXPECT_NE(md.find("| bucketed | 4 | 3 | 5,280.0 | [5,016.0 – 5,808.0] |"), std::string::npos) << md;
  EXPECT_NE(md.find("| faster |"), std::string::npos);
  const std::string html = renderHtml(input);
  EXPECT_NE(html.find("<svg class=\"chart\""), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // no resource from the network
  EXPECT_NE(html.find("Comparison: experiment 2 against 1"), std::string::npos);
}

// A restart of a run (recovery = "restart") is a row of the experiment's
// recovery table in both formats, its times read beside the injected fault;
// an experiment without one has no such section.
TEST_F(ReportTest, ARestartedRunShowsWhatItsRecoveryCost) {
  dtb::testing::writeSampleStore(db());
  const ReportData before = loadReport(ReportQueries(db()), {1});
  EXPECT_TRUE(recoveryTable(before, 1).rows.empty());
  EXPECT_EQ(renderMarkdown({"r.db", &before, std::nullopt, nullptr}).find("Recovery from failed ranks"),
            std::string::npos);
  {
    ResultStore store(db());
    Database& raw = store.database();
    raw.exec(
        "INSERT INTO event (run_id, rank, at_s, kind, detail) VALUES (1, 1, 2.0, 'fault', 'kill rank 1')");
    store.addRecovery({1, 1, "restart", "rank 1 was killed by signal 9 (SIGKILL)", 2.25, 2.3, 20, 10, 2});
    raw.exec("INSERT INTO event (run_id, rank, at_s, kind, detail) VALUES (1, 0, 2.75, 'recovered', '')");
    raw.exec("UPDATE step SET ended_at_s = 0.1 * (step + 1) WHERE run_id = 1");
  }
  const ReportData data = loadReport(ReportQueries(db()), {1});
  const std::string md = renderMarkdown({"r.db", &data, std::nullopt, nullptr});
  EXPECT_NE(md.find("### Recovery from failed ranks"), std::string::npos) << md;
  EXPECT_NE(
      md.find("| 0 | restart 1 | rank 1 was killed by signal 9 (SIGKILL) | 20 | 10 | 2 | 0.250 | 0.500 |"),
      std::string::npos)
      << md;
  const std::string html = renderHtml({"r.db", &data, std::nullopt, nullptr});
  EXPECT_NE(html.find("<h3>Recovery from failed ranks</h3>"), std::string::npos);
  EXPECT_NE(html.find("rank 1 was killed by signal 9 (SIGKILL)"), std::string::npos);
  // Its throughput over time, the fault and the recovery marked; only the
  // faulted run has one.
  const std::vector<LineChart> timelines = timelineCharts(data, 1);
  ASSERT_EQ(timelines.size(), 1u);
  EXPECT_NE(timelines[0].title.find("repeat 0: throughput over time"), std::string::npos)
      << timelines[0].title;
  ASSERT_EQ(timelines[0].series.size(), 3u);
  EXPECT_FALSE(timelines[0].series[0].points.empty());
  EXPECT_EQ(timelines[0].series[1].name, "fault injected");
  EXPECT_EQ(timelines[0].series[1].points[0].x, 2.0);
  EXPECT_EQ(timelines[0].series[2].name, "first step after recovery");
  EXPECT_NE(html.find("<h3>Throughput over time, faults marked</h3>"), std::string::npos);
}

// The verdict's noise rule in --compare: two experiments of the same code,
// one 29 % "faster", every run of A and two of B's under competing load —
// not a change anyone can call.
TEST_F(ReportTest, ComparisonOfLoadedRunsIsInconclusiveWhateverTheChange) {
  dtb::testing::writeSampleStore(db(), 1.0);
  dtb::testing::writeSampleStore(db(), 1.29);  // beyond the +-10 % jitter, were nothing loaded
  const ReportQueries queries(db());
  const ReportData data = loadReport(queries, {1, 2});
  for (const ComparisonRow& r : loadComparison(queries, 1, 2, data)) {
    EXPECT_EQ(r.verdict, "faster") << r.label << " x" << r.world;
    EXPECT_EQ(r.loadedA + r.loadedB, 0);
  }
  {
    ResultStore store(db());
    store.database().exec("UPDATE run SET loaded = 1 WHERE experiment_id = 1");
    store.database().exec("UPDATE run SET loaded = 1 WHERE experiment_id = 2 AND repeat < 2");
  }
  const ReportQueries loaded(db());
  const std::vector<ComparisonRow> rows = loadComparison(loaded, 1, 2, data);
  ASSERT_EQ(rows.size(), 6u);
  for (const ComparisonRow& r : rows) {
    EXPECT_EQ(r.verdict, "inconclusive: loaded runs (A 3/3, B 2/3)") << r.label << " x" << r.world;
    EXPECT_EQ(r.loadedA, 3);
    EXPECT_EQ(r.loadedB, 2);
    EXPECT_NEAR(r.change, 0.29, 1e-9);  // the figure stays; only the call is withheld
  }
  const ReportTable t = comparisonTable(rows);
  EXPECT_EQ(t.rowClass[0], "inconclusive");
  const std::string html = renderHtml({"r.db", &data, std::make_pair(int64_t{1}, int64_t{2}), &rows});
  EXPECT_NE(html.find("<td class=\"inconclusive\">inconclusive: loaded runs (A 3/3, B 2/3)</td>"),
            std::string::npos);
  EXPECT_EQ(html.find("class=\"faster\""), std::string::npos);
  const std::string md = renderMarkdown({"r.db", &data, std::make_pair(int64_t{1}, int64_t{2}), &rows});
  EXPECT_NE(md.find("| inconclusive: loaded runs (A 3/3, B 2/3) |"), std::string::npos) << md;
  EXPECT_EQ(md.find("| faster |"), std::string::npos);
  // B alone under load: still no call.
  {
    ResultStore store(db());
    store.database().exec("UPDATE run SET loaded = 0 WHERE experiment_id = 1");
  }
  for (const ComparisonRow& r : loadComparison(ReportQueries(db()), 1, 2, data)) {
    EXPECT_EQ(r.verdict, "inconclusive: loaded runs (A 0/3, B 2/3)");
  }
}

TEST_F(ReportTest, ComparisonWithASingleRepeatSaysTheNoiseIsUnknown) {
  writeVerdictStore(db(), {{"allreduce", 1000, 5, 5, 1}});  // experiment 1
  writeVerdictStore(db(), {{"allreduce", 2000, 5, 5, 3}});  // 2: twice as fast, but A ran once
  const ReportQueries queries(db());
  const ReportData data = loadReport(queries, {1, 2});
  const std::vector<ComparisonRow> rows = loadComparison(queries, 1, 2, data);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].verdict, "noise unknown (one repeat)");
  EXPECT_EQ(comparisonTable(rows).rowClass[0], "");
}

// The first fill="#rrggbb" or stroke="#rrggbb" colour of an element, or ""
// (hand-parsed: GCC 12 warns inside std::regex under the sanitizers).
std::string firstColour(const std::string& element) {
  size_t best = std::string::npos;
  std::string colour;
  for (const std::string attribute : {"fill=\"#", "stroke=\"#"}) {
    for (size_t at = element.find(attribute); at != std::string::npos; at = element.find(attribute, at + 1)) {
      const size_t from = at + attribute.size() - 1;  // at '#'
      if (from + 8 > element.size() || element[from + 7] != '"') continue;
      const std::string hex = element.substr(from + 1, 6);
      if (!std::all_of(hex.begin(), hex.end(),
                       [](char c) { return std::isdigit(c) || (c >= 'a' && c <= 'f'); }))
        continue;
      if (at < best) best = at, colour = "#" + hex;
      break;
    }
  }
  return colour;
}

// What every data-config element of an HTML page is drawn in (its first
// fill or stroke colour), per label; `charts` counts the charts per label.
std::map<std::string, std::set<std::string>> configColours(const std::string& html,
                                                           std::map<std::string, int>& charts) {
  std::map<std::string, std::set<std::string>> out;
  for (size_t chart = html.find("<svg class=\"chart\""); chart != std::string::npos;) {
    const size_t end = html.find("</svg>", chart);
    std::set<std::string> here;
    for (size_t at = html.find("data-config=\"", chart); at < end; at = html.find("data-config=\"", at + 1)) {
      const size_t from = at + 13;
      const std::string label = html.substr(from, html.find('"', from) - from);
      const std::string element = html.substr(from, html.find("</g>", from) - from);
      const std::string colour = firstColour(element);
      if (colour.empty()) continue;
      out[label].insert(colour);
      here.insert(label);
    }
    for (const std::string& label : here) ++charts[label];
    chart = html.find("<svg class=\"chart\"", end);
  }
  return out;
}

// A configuration keeps its colour from chart to chart and from experiment
// to experiment: topk is third in experiment 1 and second in experiment 2,
// and red in both; its world sizes on one chart differ in shape, not colour.
TEST_F(ReportTest, EveryConfigurationHasOneColourOnThePage) {
  writeVerdictStore(db(), {{"allreduce", 4000, 10, 5}, {"bucketed", 5000, 2, 5}, {"topk", 4500, 4, 5}});
  writeVerdictStore(
      db(), {{"bucketed", 5000, 2, 5}, {"topk", 4500, 4, 5}, {"topk", 8000, 4, 5, 3, int64_t{100} << 20, 4}});
  const ReportData data = loadReport(ReportQueries(db()), {1, 2});
  const std::string html = renderHtml({"r.db", &data, std::nullopt, nullptr});
  std::map<std::string, int> charts;
  const auto colours = configColours(html, charts);
  ASSERT_EQ(colours.size(), 3u) << html;
  std::set<std::string> distinct;
  for (const auto& [label, seen] : colours) {
    EXPECT_EQ(seen.size(), 1u) << label << " is drawn in " << seen.size() << " colours";
    distinct.insert(*seen.begin());
  }
  EXPECT_EQ(distinct.size(), 3u) << "two configurations share a colour";
  EXPECT_EQ(*colours.at("allreduce").begin(), paletteColor(0));
  EXPECT_EQ(*colours.at("topk").begin(), paletteColor(2));
  // Throughput, efficiency, bytes per step, test accuracy and loss, in both experiments.
  EXPECT_EQ(charts["topk"], 10);
  EXPECT_EQ(charts["allreduce"], 5);
  const std::vector<LineChart> accuracy = accuracyCharts(data, 2, "lenet");
  ASSERT_FALSE(accuracy.empty());
  std::vector<const ChartSeries*> topk;
  for (const ChartSeries& series : accuracy[0].series) {
    if (series.config == "topk") topk.push_back(&series);
  }
  ASSERT_EQ(topk.size(), 2u);  // x2 and x4
  EXPECT_EQ(topk[0]->color, topk[1]->color);
  EXPECT_NE(topk[0]->shape, topk[1]->shape);
}

// Past the palette's ten colours, a new label takes one no label beside it
// on its charts has: s10 (the eleventh) shares a chart with s0 and does not
// take s0's colour back.
TEST_F(ReportTest, PastThePaletteALabelTakesAColourItsChartsDoNotShow) {
  std::vector<MadeUpConfig> ten;
  for (int i = 0; i < 10; ++i) ten.push_back({"s" + std::to_string(i), 1000.0 + i, 5, 5, 1});
  writeVerdictStore(db(), ten);
  writeVerdictStore(db(), {{"s0", 1000, 5, 5, 1}, {"s10", 1000, 5, 5, 1}});
  const ReportData data = loadReport(ReportQueries(db()), {1, 2});
  std::map<std::string, std::set<int>> colourOf;
  for (const ReportConfig& c : data.configs) colourOf[c.label].insert(c.color);
  ASSERT_EQ(colourOf.size(), 11u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(colourOf["s" + std::to_string(i)], std::set<int>{i});
  EXPECT_EQ(colourOf["s10"], std::set<int>{1});
}

// Whether a cell reads as a number: "3,520.0", "+25.0 % (allreduce)", "[0.9 – 1]", "4K".
bool numeric(const std::string& cell) {
  size_t i = 0;
  while (i < cell.size() && (cell[i] == '+' || cell[i] == '-' || cell[i] == '[')) ++i;
  return i < cell.size() && std::isdigit(static_cast<unsigned char>(cell[i]));
}

// Every column of every table: right-aligned when its cells are numbers,
// left-aligned when any is text (blank and "—" cells say nothing).
void expectAligned(const std::vector<std::vector<std::string>>& cells, const std::vector<bool>& right,
                   const std::string& where) {
  for (size_t c = 0; c < right.size(); ++c) {
    std::optional<bool> numbers;
    for (const auto& row : cells) {
      if (c >= row.size() || row[c].empty() || row[c] == "—") continue;
      numbers = numbers.value_or(true) && numeric(row[c]);
    }
    if (numbers) {
      EXPECT_EQ(right[c], *numbers) << where << ", column " << c << ": " << cells[0][c];
    }
  }
}

// The plain cells of an HTML table row, <th> or <td>, with an optional
// class and text without markup (a cell holding tags is skipped).
struct HtmlCell {
  bool header = false;
  std::string classes, text;
};
std::vector<HtmlCell> htmlCells(const std::string& row) {
  std::vector<HtmlCell> cells;
  for (size_t at = row.find("<t"); at != std::string::npos; at = row.find("<t", at + 1)) {
    if (at + 3 >= row.size() || (row[at + 2] != 'h' && row[at + 2] != 'd')) continue;
    HtmlCell c;
    c.header = row[at + 2] == 'h';
    size_t i = at + 3;
    if (row.compare(i, 8, " class=\"") == 0) {
      const size_t close = row.find('"', i + 8);
      if (close == std::string::npos) continue;
      c.classes = row.substr(i + 8, close - i - 8);
      i = close + 1;
    }
    if (i >= row.size() || row[i] != '>') continue;
    const size_t text = i + 1, end = row.find('<', text);
    if (end == std::string::npos || row.compare(end, 3, "</t") != 0) continue;
    c.text = row.substr(text, end - text);
    cells.push_back(std::move(c));
  }
  return cells;
}

TEST_F(ReportTest, TablesPutTextLeftAndNumbersRight) {
  dtb::testing::writeSampleStore(db(), 1.0);
  dtb::testing::writeSampleStore(db(), 1.5);
  const ReportQueries queries(db());
  const ReportData data = loadReport(queries, {1, 2});
  const auto comparison = loadComparison(queries, 1, 2, data);
  const ReportInput input{"r.db", &data, std::make_pair(int64_t{1}, int64_t{2}), &comparison};
  // Markdown: the alignment row says :--- for text, ---: for numbers.
  const std::string md = renderMarkdown(input);
  std::istringstream lines(md);
  int tables = 0;
  std::vector<std::vector<std::string>> cells;
  std::vector<bool> right;
  auto split = [](const std::string& line) {
    std::vector<std::string> out;
    for (size_t at = 1; at < line.size();) {
      const size_t bar = line.find('|', at);
      std::string cell = line.substr(at, bar - at);
      out.push_back(cell.substr(1, cell.size() - 2));
      at = bar + 1;
    }
    return out;
  };
  for (std::string line; std::getline(lines, line) || !cells.empty();) {
    if (line.rfind("|", 0) != 0) {
      if (!cells.empty()) expectAligned(cells, right, "markdown table " + std::to_string(tables));
      cells.clear();
      line.clear();
      continue;
    }
    if (line.find_first_not_of("|:-") == std::string::npos) {  // the alignment row, under the header
      ++tables;
      right.clear();
      cells.clear();
      for (size_t at = 1; at < line.size(); at = line.find('|', at) + 1) {
        const std::string rule = line.substr(at, line.find('|', at) - at);
        EXPECT_TRUE(rule == ":---" || rule == "---:") << line;
        right.push_back(rule == "---:");
      }
      continue;
    }
    cells.push_back(split(line));
  }
  EXPECT_GE(tables, 9);
  EXPECT_NE(md.find("|:---|---:|---:|---:|"), std::string::npos);
  // HTML: numbers' cells (and their headers) carry class "r", text's none.
  const std::string html = renderHtml(input);
  int htmlTables = 0;
  for (size_t at = html.find("<table>"); at != std::string::npos; at = html.find("<table>", at + 1)) {
    ++htmlTables;
    const std::string table = html.substr(at, html.find("</table>", at) - at);
    std::vector<std::vector<std::string>> rows;
    std::vector<bool> headerRight;
    std::vector<std::vector<bool>> rowRight;
    for (size_t tr = table.find("<tr>"); tr != std::string::npos; tr = table.find("<tr>", tr + 1)) {
      const std::string row = table.substr(tr, table.find("</tr>", tr) - tr);
      std::vector<std::string> texts;
      std::vector<bool> aligned;
      bool header = false;
      for (const HtmlCell& c : htmlCells(row)) {
        header = c.header;
        aligned.push_back((" " + c.classes + " ").find(" r ") != std::string::npos);
        texts.push_back(c.text);
      }
      if (header) {
        headerRight = aligned;
        rows.push_back(texts);
        continue;
      }
      EXPECT_EQ(aligned, headerRight) << "a cell aligned unlike its header: " << row;
      rows.push_back(texts);
    }
    std::vector<std::vector<std::string>> body(rows.begin() + 1, rows.end());
    if (!body.empty()) expectAligned(body, headerRight, "html table " + std::to_string(htmlTables));
  }
  EXPECT_EQ(htmlTables, tables);
}

// Bytes per step: the sample's 1,000-parameter model all-reduced moves
// 2 x 4,000 x (G - 1) / G bytes a step (0, 4,000 and 6,000 at 1, 2, 4
// ranks), a column of the key figures and a chart of bars per world size.
TEST_F(ReportTest, BytesPerStepIsAColumnAndAChart) {
  dtb::testing::writeSampleStore(db());
  const ReportData data = loadReport(ReportQueries(db()), {1});
  const std::string model = data.configs[0].model;
  const ReportTable table = keyFigureTable(data, 1, model);
  const size_t column =
      std::find(table.headers.begin(), table.headers.end(), "MB/step (bus)") - table.headers.begin();
  ASSERT_LT(column, table.headers.size());
  EXPECT_EQ(table.align[column], 'r');
  std::map<std::string, std::string> shown;
  for (const auto& row : table.rows) shown[row[0] + " x" + row[1]] = row[column];
  EXPECT_EQ(shown["allreduce x1"], "0");
  EXPECT_EQ(shown["allreduce x2"], "0.00400");
  EXPECT_EQ(shown["bucketed x4"], "0.00600");
  EXPECT_EQ(shown["allreduce x8"], "—");  // the failed cell moved nothing anyone measured
  const std::vector<GroupedBarChart> charts = busBytesCharts(data, 1, model);
  ASSERT_EQ(charts.size(), 1u);
  EXPECT_EQ(charts[0].groups, (std::vector<std::string>{"1 rank", "2 ranks", "4 ranks"}));
  ASSERT_EQ(charts[0].series.size(), 2u);
  EXPECT_EQ(charts[0].series[1].name, "bucketed");
  EXPECT_EQ(charts[0].series[1].config, "bucketed");
  ASSERT_EQ(charts[0].series[1].values.size(), 3u);
  EXPECT_NEAR(charts[0].series[1].values[0], 0, 1e-12);
  EXPECT_NEAR(charts[0].series[1].values[1], 0.004, 1e-12);
  EXPECT_NEAR(charts[0].series[1].values[2], 0.006, 1e-12);
  const std::string html = renderHtml({"r.db", &data, std::nullopt, nullptr});
  EXPECT_NE(html.find(model + ": bus bytes per step"), std::string::npos);
  EXPECT_NE(html.find("<title>bucketed, 4 ranks: 0.006 MB</title>"), std::string::npos);
  EXPECT_NE(renderMarkdown({"r.db", &data, std::nullopt, nullptr}).find("| MB/step (bus) |"),
            std::string::npos);

  // A compressing strategy moves a fortieth of the bytes: its bar is a fortieth as tall.
  std::filesystem::remove(db());
  writeVerdictStore(db(),
                    {{"allreduce", 4000, 10, 5}, {"topk", 4500, 4, 5, 3, int64_t{100} << 20, 2, 2.5e4}});
  const ReportData topk = loadReport(ReportQueries(db()), {1});
  std::map<std::string, std::string> mb;
  const ReportTable t = keyFigureTable(topk, 1, "lenet");
  for (const auto& row : t.rows) mb[row[0]] = row[column];
  EXPECT_EQ(mb["allreduce"], "1.00");
  EXPECT_EQ(mb["topk"], "0.0250");
  const std::vector<GroupedBarChart> bars = busBytesCharts(topk, 1, "lenet");
  ASSERT_EQ(bars.size(), 1u);
  EXPECT_EQ(bars[0].groups, std::vector<std::string>{"2 ranks"});
  EXPECT_NEAR(bars[0].series[1].values[0], 0.025, 1e-12);
}

}  // namespace
}  // namespace dtb::core
