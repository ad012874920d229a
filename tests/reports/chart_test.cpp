// Charts that read at a glance: settings in numeric order, whole labels,
// minor ticks on log axes, a far-off point flagged at the edge instead of
// stretching the axis, coinciding lines said to coincide, the model's state
// apart from the strategies' buffers, values with units in tooltips, and the
// Markdown report carrying the tables behind the charts.
#include <gtest/gtest.h>

#include <algorithm>

#include "matrix/cell.h"
#include "report/chart_notes.h"
#include "report/report_charts.h"
#include "report/report_data.h"
#include "report/report_format.h"
#include "report/svg_chart.h"
#include "sample_store.h"
#include "store/result_store.h"
#include "temp_dir.h"

namespace dtb::core {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ChartReading, SettingsSortAsNumbers) {
  std::vector<std::string> labels = {"fusion threshold_mb=128",
                                     "fusion threshold_mb=0",
                                     "fusion threshold_mb=64",
                                     "allreduce",
                                     "zero stage=3",
                                     "zero stage=1"};
  std::sort(labels.begin(), labels.end(), naturalLess);
  EXPECT_EQ(labels, (std::vector<std::string>{"allreduce", "fusion threshold_mb=0", "fusion threshold_mb=64",
                                              "fusion threshold_mb=128", "zero stage=1", "zero stage=3"}));
  EXPECT_TRUE(naturalLess("lr=0.25", "lr=0.5"));
  EXPECT_TRUE(naturalLess("bucket=5e8", "bucket=1e9"));
  EXPECT_FALSE(naturalLess("a=2", "a=2"));
  EXPECT_TRUE(naturalLess("a=2", "a=2 b=1"));
}

TEST(ChartReading, TheReportOrdersConfigurationsByTheirSettingsValues) {
  dtb::testing::TempDir dir;
  {
    ResultStore store(dir.path() / "r.db");
    const int64_t x = store.addExperiment({"caps", "", "m.toml", ""});
    int index = 0;
    for (int64_t cap : {100, 1, 25}) {
      Cell c;
      c.index = index++;
      c.values = {{"model", std::string("lenet")},
                  {"dataset", std::string("idx")},
                  {"strategy", std::string("bucketed")},
                  {"backend", std::string("gloo")},
                  {"world_size", int64_t{2}},
                  {"batch_size", int64_t{32}},
                  {"global_batch_size", int64_t{64}},
                  {"strategy.bucketed.bucket_cap_mb", cap}};
      store.addRun(x, c, 0);
    }
  }
  const ReportData data = loadReport(ReportQueries(dir.path() / "r.db"), {1});
  std::vector<std::string> labels;
  for (const ReportConfig& c : data.configs) labels.push_back(c.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"bucketed bucket_cap_mb=1", "bucketed bucket_cap_mb=25",
                                              "bucketed bucket_cap_mb=100"}));
}

LineChart efficiencyWithOneFarOffPoint() {
  LineChart chart{"efficiency",
                  {"ranks", 2, TickFormat::kNumber, false, false, "ranks"},
                  {"efficiency", 0, TickFormat::kPercent, true},
                  {},
                  ""};
  chart.series.push_back({"allreduce", {{1, 1.0}, {2, 0.9}, {4, 0.85}}});
  chart.series.push_back({"bucketed", {{1, 1.0}, {2, 0.95}, {4, 9.0}}});  // a slow reference elsewhere
  return chart;
}

TEST(ChartReading, AFarOffPointIsFlaggedAtTheEdgeNotToScale) {
  const LineChart chart = efficiencyWithOneFarOffPoint();
  const std::vector<OffScalePoint> off = offScalePoints(chart);
  ASSERT_EQ(off.size(), 1u);
  EXPECT_EQ(off[0].series, 1u);
  EXPECT_EQ(off[0].point, 2u);
  EXPECT_TRUE(off[0].above);
  const std::string svg = renderLineChart(chart);
  EXPECT_EQ(count(svg, "class=\"mark outlier\""), 1u);
  EXPECT_NE(svg.find("bucketed: 4 ranks → 900.0 % (off the scale)"), std::string::npos) << svg;
  EXPECT_NE(svg.find("1 point lies far off the others"), std::string::npos);
  EXPECT_NE(svg.find(">100%<"), std::string::npos);  // the axis reads the others' range
  EXPECT_EQ(svg.find(">800%<"), std::string::npos) << "the outlier stretched the axis";
  // Dashed reference lines and log axes are never flagged.
  LineChart log = chart;
  log.y.logBase = 10;
  EXPECT_TRUE(offScalePoints(log).empty());
}

TEST(ChartReading, CoincidingLinesAreSaidToCoincide) {
  LineChart chart{"accuracy",
                  {"epoch", 0, TickFormat::kNumber, false, true},
                  {"test accuracy", 0, TickFormat::kPercent, false},
                  {},
                  ""};
  chart.series.push_back({"allreduce ×2", {{1, 0.9}, {2, 0.95}}});
  chart.series.push_back({"bucketed ×2", {{2, 0.95}, {1, 0.9}}});  // same points, other order
  chart.series.push_back({"zero ×2", {{1, 0.9}, {2, 0.96}}});
  EXPECT_EQ(coincidingSeries(chart), (std::vector<std::vector<size_t>>{{0, 1}}));
  EXPECT_NE(renderLineChart(chart).find("2 lines coincide and draw as one: allreduce ×2 = bucketed ×2"),
            std::string::npos);
}

TEST(ChartReading, LogAxesHaveMinorTicksAndShortSpansLabelTheirTwosAndFives) {
  LineChart chart{"throughput",
                  {"ranks", 2, TickFormat::kNumber, false, false, "ranks"},
                  {"samples/s", 10, TickFormat::kNumber, false, false, "samples/s"},
                  {},
                  ""};
  chart.series.push_back({"a", {{1, 1200}, {2, 2300}, {4, 4100}}});
  const std::string svg = renderLineChart(chart);
  EXPECT_GE(count(svg, "class=\"grid minor\""), 8u);  // 2000..9000 between 1000 and 10000
  EXPECT_NE(svg.find(">2000<"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">5000<"), std::string::npos);
  EXPECT_NE(svg.find("a: 2 ranks → 2,300 samples/s"), std::string::npos);  // tooltips with units
}

TEST(ChartReading, LabelsAreShownWhole) {
  const std::string name = "bucketed backend=mpi bucket_cap_mb=25 gradient_as_bucket_view=true ×4";
  LineChart chart{"t", {"ranks", 2}, {"samples/s", 10}, {}, ""};
  chart.series.push_back({name, {{1, 1}, {2, 2}}});
  const std::string svg = renderLineChart(chart);
  EXPECT_EQ(svg.find("…"), std::string::npos);
  for (const char* word : {"bucket_cap_mb=25", "gradient_as_bucket_view=true", "×4"})
    EXPECT_NE(svg.find(std::string(">") + word), std::string::npos) << word;
  StackedBarChart bars{"b", "ms", {name, "allreduce ×4"}, {"forward"}, {{1, 2}}, "ms"};
  const std::string barSvg = renderStackedBars(bars);
  EXPECT_EQ(barSvg.find("…"), std::string::npos);
  EXPECT_NE(barSvg.find("gradient_as_bucket_view=true"), std::string::npos);
  EXPECT_NE(barSvg.find("allreduce ×4 — forward: 2 ms of 2 ms"), std::string::npos) << barSvg;
}

TEST(ChartReading, ValuesReadWithUnitsAndSensibleDigits) {
  EXPECT_EQ(formatValue(3520.4, TickFormat::kNumber, "samples/s"), "3,520 samples/s");
  EXPECT_EQ(formatValue(0.41234, TickFormat::kNumber, "ms"), "0.412 ms");
  EXPECT_EQ(formatValue(12.345, TickFormat::kNumber, "GB/s"), "12.3 GB/s");
  EXPECT_EQ(formatValue(4, TickFormat::kNumber, "ranks"), "4 ranks");
  EXPECT_EQ(formatValue(65536, TickFormat::kBytes, ""), "64 KiB");
  EXPECT_EQ(formatValue(0.8, TickFormat::kPercent, ""), "80.0 %");
}

TEST(ChartReading, MemoryShowsTheModelsStateApartFromTheBuffers) {
  dtb::testing::TempDir dir;
  dtb::testing::writeSampleStore(dir.path() / "r.db");
  const ReportData data = loadReport(ReportQueries(dir.path() / "r.db"), {1});
  const std::vector<StackedBarChart> charts = memoryCharts(data, 1, data.configs[0].model);
  ASSERT_EQ(charts.size(), 2u);
  EXPECT_EQ(charts[0].layers, (std::vector<std::string>{"parameters", "gradients", "optimizer state"}));
  EXPECT_EQ(charts[1].layers, (std::vector<std::string>{"strategy buffers"}));
  // The Markdown report carries the numbers behind the charts.
  const ReportInput input{"r.db", &data, std::nullopt, nullptr};
  const std::string md = renderMarkdown(input);
  EXPECT_NE(md.find("| configuration | ranks | data | forward | backward | exposed comm |"),
            std::string::npos);
  EXPECT_NE(md.find("| configuration | ranks | parameters (MB) | gradients |"), std::string::npos);
  EXPECT_NE(md.find("Every size:"), std::string::npos);
}

}  // namespace
}  // namespace dtb::core
