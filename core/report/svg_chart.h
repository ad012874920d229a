// Charts as inline SVG, drawn from numbers alone (no script, no network), in
// the shapes papers use: lines over a linear or logarithmic axis (scaling
// curves, bandwidth against message size) with optional error bars and
// dashed reference lines, and stacked bars (step-time breakdown, memory by
// category). Every data mark carries class "mark" and a <title> tooltip, so
// a browser test can find them.
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

struct ChartSeries {
  std::string name;
  std::vector<ChartPoint> points;
  int color = -1;       // palette index; -1: the series' position
  bool dashed = false;  // reference lines (ideal scaling, memcpy)
  bool markers = true;
  bool legend = true;  // false: drawn without a legend entry of its own
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

// A point a chart can place: finite, and positive on a log axis.
bool isDrawable(const LineChart& chart, const ChartPoint& point);

std::string renderLineChart(const LineChart& chart);
std::string renderStackedBars(const StackedBarChart& chart);

std::string xmlEscape(const std::string& text);
// 1234567 -> "1.23M", 0.5 -> "0.5"; bytes: 4096 -> "4K"; percent: 0.8 -> "80%".
std::string formatTick(double value, TickFormat format);
// A value for a reader, with its unit: about three significant digits and
// thousands separators ("3,520 samples/s", "0.412 ms"), bytes in binary units
// ("64 KiB"), shares as percent ("80.0 %").
std::string formatValue(double value, TickFormat format, const std::string& unit);

}  // namespace dtb::core
