// The report's data and drawing: configurations labelled by what differs,
// key figures and comparisons from the sample store's known numbers, the
// SVG charts' scales and escaping, and both output formats.
#include <gtest/gtest.h>

#include <fstream>

#include "report/report_charts.h"
#include "report/report_data.h"
#include "report/report_format.h"
#include "report/report_tables.h"
#include "report/svg_chart.h"
#include "sample_store.h"
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
      c.values = {{"model", std::string("lenet")}, {"dataset", std::string("idx")},
                  {"strategy", strategy},          {"backend", backend},
                  {"world_size", int64_t{2}},      {"batch_size", int64_t{32}},
                  {"global_batch_size", int64_t{64}}, {"seed", int64_t{1}}};
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

TEST(SvgChart, LogAxesTickOnPowersAndTextIsEscaped) {
  LineChart chart{"a <b> & c", {"bytes", 2, TickFormat::kBytes, false}, {"GB/s", 0, TickFormat::kNumber, true}, {}, ""};
  chart.series.push_back({"gloo \"x\"", {{4096, 1}, {65536, 2}, {1 << 20, 3}}});
  const std::string svg = renderLineChart(chart);
  EXPECT_NE(svg.find("a &lt;b&gt; &amp; c"), std::string::npos);
  EXPECT_NE(svg.find("gloo &quot;x&quot;"), std::string::npos);
  for (const char* tick : {">4K<", ">16K<", ">64K<", ">256K<", ">1M<"}) EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  EXPECT_EQ(std::count(svg.begin(), svg.end(), '\n') > 5, true);
  size_t marks = 0;
  for (size_t at = svg.find("class=\"mark\""); at != std::string::npos; at = svg.find("class=\"mark\"", at + 1)) ++marks;
  EXPECT_EQ(marks, 3u);
  EXPECT_EQ(formatTick(1234567, TickFormat::kNumber), "1.23457M");
  EXPECT_EQ(formatTick(0.75, TickFormat::kPercent), "75%");
}

TEST(SvgChart, StackedBarsStackEachLayerOnTheLast) {
  StackedBarChart chart{"t", "ms", {"a", "b"}, {"forward", "backward"}, {{1, 2}, {3, 4}}};
  const std::string svg = renderStackedBars(chart);
  size_t rects = 0;
  for (size_t at = svg.find("<rect class=\"mark\""); at != std::string::npos; at = svg.find("<rect class=\"mark\"", at + 1))
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

}  // namespace
}  // namespace dtb::core
