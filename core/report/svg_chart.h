// Charts as inline SVG, drawn from numbers alone (no script, no network), in
// the shapes papers use: lines over a linear or logarithmic axis (scaling
// curves, bandwidth against message size) with optional error bars and
// dashed reference lines, stacked bars (step-time breakdown, memory by
// category) and bars side by side in groups (bytes per step of each
// configuration at each world size). Every data mark carries class "mark"
// and a <title> tooltip, so a browser test can find them; whatever draws a
// configuration (its series, bars and legend entry) carries
// data-config="LABEL", so a test can check it has one colour on the page.
#pragma once

#include <cmath>
#include <string>
#include <vector>

namespace dtb::core {

enum class TickFormat { kNumber, kBytes, kPercent };

struct ChartAxis {
  std::string label;  // with its unit: "samples/s", "message size (bytes)"
  int logBase = 0;    // 0: linear; 2 or 10: logarithmic
  TickFormat format = TickFormat::kNumber;
  bool fromZero = true;   // linear axes start at 0 unless false
  bool integers = false;  // ticks on whole numbers only (epochs)
  std::string unit;       // in tooltips after each value: "samples/s", "GB/s" ("" for none)
};

struct ChartPoint {
  double x = 0, y = 0;
  double low = NAN, high = NAN;  // a spread drawn as an error bar when both are set
};

// The palette's size: colour indexes beyond it cycle.
constexpr int kPaletteSize = 10;
// The palette's colour `index` (cycled), as "#rrggbb".
const char* paletteColor(int index);

// What marks a series' points: a configuration's world sizes on one chart
// share its colour and differ in shape.
enum class MarkerShape { kCircle, kSquare, kTriangle, kDiamond };
constexpr int kMarkerShapes = 4;

struct ChartSeries {
  std::string name;
  std::vector<ChartPoint> points;
  int color = -1;       // palette index; -1: the series' position
  bool dashed = false;  // reference lines (ideal scaling, memcpy)
  bool markers = true;
  bool legend = true;  // false: drawn without a legend entry of its own
  MarkerShape shape = MarkerShape::kCircle;
  std::string config;  // the configuration's label it draws ("" for none): data-config
};

struct LineChart {
  std::string title;
  ChartAxis x, y;
  std::vector<ChartSeries> series;
  std::string dashedLegend;  // when set: one legend entry for every dashed series
};

struct StackedBarChart {
  std::string title;
  std::string yLabel;
  std::vector<std::string> bars;            // one label per bar
  std::vector<std::string> layers;          // bottom first
  std::vector<std::vector<double>> values;  // values[layer][bar]
  std::string unit;                         // in tooltips: "ms", "MB"
};

// Bars of one series (a configuration) across the groups of a GroupedBarChart.
struct BarSeries {
  std::string name;
  std::vector<double> values;  // per group; NAN: no bar there
  int color = -1;              // palette index; -1: the series' position
  std::string config;          // as ChartSeries::config
};

// Groups along x (one per world size), in each a bar per series, side by
// side on a linear axis from 0.
struct GroupedBarChart {
  std::string title;
  std::string yLabel;
  std::vector<std::string> groups;  // "1 rank", "2 ranks"
  std::vector<BarSeries> series;
  std::string unit;  // in tooltips: "MB"
};

// A point a chart can place: finite, and positive on a log axis.
bool isDrawable(const LineChart& chart, const ChartPoint& point);

std::string renderLineChart(const LineChart& chart);
std::string renderStackedBars(const StackedBarChart& chart);
std::string renderGroupedBars(const GroupedBarChart& chart);

std::string xmlEscape(const std::string& text);
// 1234567 -> "1.23M", 0.5 -> "0.5"; bytes: 4096 -> "4K"; percent: 0.8 -> "80%".
std::string formatTick(double value, TickFormat format);
// A value for a reader, with its unit: about three significant digits and
// thousands separators ("3,520 samples/s", "0.412 ms"), bytes in binary units
// ("64 KiB"), shares as percent ("80.0 %").
std::string formatValue(double value, TickFormat format, const std::string& unit);

}  // namespace dtb::core
