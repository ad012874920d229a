#include "report/svg_chart.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>
#include <sstream>
#include <utility>

#include "report/chart_notes.h"
#include "report/chart_scale.h"
#include "report/report_format.h"

namespace dtb::core {
namespace {

constexpr double kWidth = 720, kHeight = 380;
constexpr double kLeft = 76, kRight = 236, kTop = 40, kBottom = 56;
constexpr double kPlotWidth = kWidth - kLeft - kRight, kPlotHeight = kHeight - kTop - kBottom;

std::string num(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f", v);
  return text;
}

// ` data-config="LABEL"` for what draws a configuration, else "".
std::string configAttribute(const std::string& config) {
  return config.empty() ? "" : " data-config=\"" + xmlEscape(config) + "\"";
}

// A marker of `shape` centred on (cx, cy); `extra`: attributes (class, …)
// and `inside`: its children (a <title>).
std::string marker(MarkerShape shape, double cx, double cy, const std::string& color,
                   const std::string& extra, const std::string& inside) {
  const std::string fill = " fill=\"" + color + "\"" + extra + ">" + inside;
  switch (shape) {
    case MarkerShape::kSquare:
      return "<rect x=\"" + num(cx - 3.25) + "\" y=\"" + num(cy - 3.25) + "\" width=\"6.5\" height=\"6.5\"" +
             fill + "</rect>";
    case MarkerShape::kTriangle:
      return "<path d=\"M" + num(cx) + " " + num(cy - 4.5) + " L" + num(cx + 4.2) + " " + num(cy + 3) + " L" +
             num(cx - 4.2) + " " + num(cy + 3) + " Z\"" + fill + "</path>";
    case MarkerShape::kDiamond:
      return "<path d=\"M" + num(cx) + " " + num(cy - 4.5) + " L" + num(cx + 4.5) + " " + num(cy) + " L" +
             num(cx) + " " + num(cy + 4.5) + " L" + num(cx - 4.5) + " " + num(cy) + " Z\"" + fill + "</path>";
    case MarkerShape::kCircle:
      break;
  }
  return "<circle cx=\"" + num(cx) + "\" cy=\"" + num(cy) + "\" r=\"3.5\"" + fill + "</circle>";
}

// `extraHeight`: room below the plot for slanted bar labels.
std::string header(const std::string& title, const std::string& kind, double extraHeight = 0) {
  const double height = kHeight + extraHeight;
  return "<svg class=\"chart\" data-kind=\"" + kind +
         "\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + num(kWidth) + " " + num(height) +
         "\" width=\"" + num(kWidth) + "\" height=\"" + num(height) + "\" role=\"img\" aria-label=\"" +
         xmlEscape(title) + "\">\n<text class=\"title\" x=\"" + num(kLeft) + "\" y=\"22\">" +
         xmlEscape(title) + "</text>\n" + "<rect class=\"plot\" x=\"" + num(kLeft) + "\" y=\"" + num(kTop) +
         "\" width=\"" + num(kPlotWidth) + "\" height=\"" + num(kPlotHeight) + "\"/>\n";
}

std::string yAxis(const ChartScale& y, const ChartAxis& axis) {
  std::string out;
  for (double t : y.minorTicks()) {
    const double py = kTop + kPlotHeight * (1 - y.fraction(t));
    out += "<line class=\"grid minor\" x1=\"" + num(kLeft - 4) + "\" x2=\"" + num(kLeft + kPlotWidth) +
           "\" y1=\"" + num(py) + "\" y2=\"" + num(py) + "\"/>";
    if (y.labelsMinor(t)) {
      out += "<text class=\"tick minor\" x=\"" + num(kLeft - 6) + "\" y=\"" + num(py + 4) +
             "\" text-anchor=\"end\">" + xmlEscape(formatTick(t, axis.format)) + "</text>";
    }
    out += "\n";
  }
  for (double t : y.ticks()) {
    const double py = kTop + kPlotHeight * (1 - y.fraction(t));
    out += "<line class=\"grid\" x1=\"" + num(kLeft) + "\" x2=\"" + num(kLeft + kPlotWidth) + "\" y1=\"" +
           num(py) + "\" y2=\"" + num(py) + "\"/><text class=\"tick\" x=\"" + num(kLeft - 6) + "\" y=\"" +
           num(py + 4) + "\" text-anchor=\"end\">" + xmlEscape(formatTick(t, axis.format)) + "</text>\n";
  }
  out += "<text class=\"axis\" transform=\"translate(16 " + num(kTop + kPlotHeight / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">" + xmlEscape(axis.label + (axis.logBase ? " (log)" : "")) +
         "</text>\n";
  return out;
}

// Words of `text` in lines of at most `width` characters (a longer word is
// cut): labels are shown whole, never truncated.
std::vector<std::string> wrapText(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream words(text);
  for (std::string w; words >> w;) {
    while (w.size() > width) {
      if (!line.empty()) lines.push_back(std::exchange(line, ""));
      lines.push_back(w.substr(0, width));
      w = w.substr(width);
    }
    if (!line.empty() && line.size() + 1 + w.size() > width) lines.push_back(std::exchange(line, ""));
    line += (line.empty() ? "" : " ") + w;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

// The legend beside the plot: entries wrapped over as many lines as their
// names need, until the column is full; the rest counted at its foot.
class Legend {
 public:
  static constexpr size_t kChars = 30;  // what fits in the right margin

  // `shape`: a marker drawn on a line's swatch; `config`: the configuration
  // the entry names ("" for none).
  void add(const std::string& name, const std::string& color, bool dashed, bool box,
           std::optional<MarkerShape> shape = std::nullopt, const std::string& config = "") {
    const std::vector<std::string> lines = wrapText(name, kChars);
    const double height = 18 + 13.0 * static_cast<double>(lines.size() - 1);
    if (y_ + height > kHeight - 30) {
      ++hidden_;
      return;
    }
    const double x = kLeft + kPlotWidth + 14;
    const std::string swatch = box ? "<rect x=\"" + num(x) + "\" y=\"" + num(y_ - 9) +
                                         "\" width=\"16\" height=\"10\" fill=\"" + color + "\"/>"
                                   : "<line x1=\"" + num(x) + "\" x2=\"" + num(x + 16) + "\" y1=\"" +
                                         num(y_ - 4) + "\" y2=\"" + num(y_ - 4) + "\" stroke=\"" + color +
                                         "\" stroke-width=\"2\"" +
                                         (dashed ? " stroke-dasharray=\"5 3\"" : "") + "/>" +
                                         (shape ? marker(*shape, x + 8, y_ - 4, color, "", "") : "");
    out_ += "<g class=\"legend\"" + configAttribute(config) + ">" + swatch + "<text x=\"" + num(x + 22) +
            "\" y=\"" + num(y_) + "\"><title>" + xmlEscape(name) + "</title>";
    for (size_t i = 0; i < lines.size(); ++i) {
      out_ += "<tspan x=\"" + num(x + 22) + "\"" + (i ? " dy=\"13\"" : "") + ">" + xmlEscape(lines[i]) +
              "</tspan>";
    }
    out_ += "</text></g>\n";
    y_ += height;
  }

  std::string finish() {
    if (hidden_ > 0) {
      out_ += "<g class=\"legend\"><text x=\"" + num(kLeft + kPlotWidth + 14) + "\" y=\"" + num(y_) + "\">+" +
              std::to_string(hidden_) + " more (hover the points)</text></g>\n";
    }
    return out_;
  }

 private:
  double y_ = kTop + 8;
  int hidden_ = 0;
  std::string out_;
};

// Lines of small print below a chart (outliers, coinciding series): the
// height they add to it.
std::string notesBelow(const std::vector<std::string>& notes, double& extraHeight) {
  std::string out;
  for (const std::string& note : notes) {
    for (const std::string& line : wrapText(note, 110)) {
      out += "<text class=\"note\" x=\"" + num(kLeft) + "\" y=\"" + num(kHeight + 4 + extraHeight) + "\">" +
             xmlEscape(line) + "</text>\n";
      extraHeight += 14;
    }
  }
  return out;
}

// The x axis of a line chart: ticks, minor ticks and its label; `px` maps a
// value to pixels.
template <typename ToPixels>
std::string xAxis(const ChartScale& x, const ChartAxis& axis, ToPixels px) {
  std::string out;
  for (double t : x.ticks()) {
    out += "<line class=\"grid\" x1=\"" + num(px(t)) + "\" x2=\"" + num(px(t)) + "\" y1=\"" + num(kTop) +
           "\" y2=\"" + num(kTop + kPlotHeight) + "\"/><text class=\"tick\" x=\"" + num(px(t)) + "\" y=\"" +
           num(kTop + kPlotHeight + 16) + "\" text-anchor=\"middle\">" +
           xmlEscape(formatTick(t, axis.format)) + "</text>\n";
  }
  for (double t : x.minorTicks()) {
    out += "<line class=\"grid minor\" x1=\"" + num(px(t)) + "\" x2=\"" + num(px(t)) + "\" y1=\"" +
           num(kTop) + "\" y2=\"" + num(kTop + kPlotHeight + 4) + "\"/>";
    if (x.labelsMinor(t)) {
      out += "<text class=\"tick minor\" x=\"" + num(px(t)) + "\" y=\"" + num(kTop + kPlotHeight + 16) +
             "\" text-anchor=\"middle\">" + xmlEscape(formatTick(t, axis.format)) + "</text>";
    }
    out += "\n";
  }
  return out + "<text class=\"axis\" x=\"" + num(kLeft + kPlotWidth / 2) + "\" y=\"" + num(kHeight - 12) +
         "\" text-anchor=\"middle\">" + xmlEscape(axis.label + (axis.logBase ? " (log)" : "")) + "</text>\n";
}

// "bucketed: 4 ranks → 3,520 samples/s [3,344 – 3,872]"
std::string pointTitle(const LineChart& chart, const ChartSeries& s, const ChartPoint& p) {
  std::string text = s.name + ": " + formatValue(p.x, chart.x.format, chart.x.unit) + " → " +
                     formatValue(p.y, chart.y.format, chart.y.unit);
  if (std::isfinite(p.low) && std::isfinite(p.high) && p.high > p.low) {
    text +=
        " [" + formatValue(p.low, chart.y.format, "") + " – " + formatValue(p.high, chart.y.format, "") + "]";
  }
  return text;
}

}  // namespace

const char* paletteColor(int index) {
  static const char* kColors[kPaletteSize] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                              "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#7f7f7f"};
  return kColors[((index % kPaletteSize) + kPaletteSize) % kPaletteSize];
}

std::string xmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string formatTick(double value, TickFormat format) {
  char text[32];
  if (format == TickFormat::kPercent) {
    std::snprintf(text, sizeof(text), "%.0f%%", value * 100);
    return text;
  }
  if (format == TickFormat::kBytes) {
    const char* units[] = {"G", "M", "K"};
    const double scales[] = {1024.0 * 1024 * 1024, 1024.0 * 1024, 1024.0};
    for (int i = 0; i < 3; ++i) {
      if (value >= scales[i]) {
        std::snprintf(text, sizeof(text), "%g%s", value / scales[i], units[i]);
        return text;
      }
    }
    std::snprintf(text, sizeof(text), "%g", value);
    return text;
  }
  const double a = std::abs(value);
  if (a >= 1e9)
    std::snprintf(text, sizeof(text), "%gG", value / 1e9);
  else if (a >= 1e6)
    std::snprintf(text, sizeof(text), "%gM", value / 1e6);
  else if (a >= 1e4)
    std::snprintf(text, sizeof(text), "%gk", value / 1e3);
  else
    std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

std::string formatValue(double value, TickFormat format, const std::string& unit) {
  if (!std::isfinite(value)) return "—";
  if (format == TickFormat::kPercent) return formatNumber(100 * value, 1) + " %";
  if (format == TickFormat::kBytes) {
    const char* units[] = {"GiB", "MiB", "KiB"};
    const double scales[] = {1024.0 * 1024 * 1024, 1024.0 * 1024, 1024.0};
    for (int i = 0; i < 3; ++i) {
      if (std::abs(value) >= scales[i]) return formatValue(value / scales[i], TickFormat::kNumber, units[i]);
    }
    return formatValue(value, TickFormat::kNumber, "bytes");
  }
  const double a = std::abs(value);
  const bool whole = a < 1e15 && value == std::round(value);  // ranks, epochs: no ".00"
  const int decimals = whole || a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  return formatNumber(value, decimals) + (unit.empty() ? "" : " " + unit);
}

bool isDrawable(const LineChart& chart, const ChartPoint& p) {
  return std::isfinite(p.x) && std::isfinite(p.y) && (chart.x.logBase == 0 || p.x > 0) &&
         (chart.y.logBase == 0 || p.y > 0);
}

std::string renderLineChart(const LineChart& chart) {
  const std::vector<OffScalePoint> offScale = offScalePoints(chart);
  auto isOffScale = [&](size_t series, size_t point) {
    return std::any_of(offScale.begin(), offScale.end(),
                       [&](const OffScalePoint& o) { return o.series == series && o.point == point; });
  };
  double xLow = std::numeric_limits<double>::infinity(), xHigh = -xLow, yLow = xLow, yHigh = -xLow;
  for (size_t i = 0; i < chart.series.size(); ++i) {
    for (size_t j = 0; j < chart.series[i].points.size(); ++j) {
      const ChartPoint& p = chart.series[i].points[j];
      if (!isDrawable(chart, p)) continue;
      xLow = std::min(xLow, p.x);
      xHigh = std::max(xHigh, p.x);
      if (isOffScale(i, j)) continue;  // flagged at the edge instead of stretching the axis
      yLow = std::min({yLow, p.y, std::isfinite(p.low) ? p.low : p.y});
      yHigh = std::max({yHigh, p.y, std::isfinite(p.high) ? p.high : p.y});
    }
  }
  ChartScale x = scaleFor(chart.x, xLow, xHigh);
  if (xLow == xHigh && std::isfinite(xLow)) {  // one x value: centre it
    x.low = chart.x.logBase > 0 ? xLow / chart.x.logBase : xLow - 1;
    x.high = chart.x.logBase > 0 ? xLow * chart.x.logBase : xLow + 1;
  }
  const ChartScale y = scaleFor(chart.y, yLow, yHigh);
  auto px = [&](double v) { return kLeft + kPlotWidth * std::clamp(x.fraction(v), 0.0, 1.0); };
  auto py = [&](double v) { return kTop + kPlotHeight * (1 - std::clamp(y.fraction(v), 0.0, 1.0)); };

  std::string out = yAxis(y, chart.y) + xAxis(x, chart.x, px);
  Legend legend;
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const ChartSeries& s = chart.series[i];
    const std::string color = paletteColor(s.color >= 0 ? s.color : static_cast<int>(i));
    std::vector<size_t> order;  // drawable points, by x
    for (size_t j = 0; j < s.points.size(); ++j) {
      if (isDrawable(chart, s.points[j])) order.push_back(j);
    }
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return s.points[a].x < s.points[b].x; });
    if (order.empty()) continue;
    out += "<g class=\"series\" data-name=\"" + xmlEscape(s.name) + "\"" + configAttribute(s.config) + ">";
    if (order.size() > 1) {
      out += "<polyline class=\"line\" fill=\"none\" stroke=\"" + color + "\" stroke-width=\"2\"" +
             (s.dashed ? " stroke-dasharray=\"5 3\"" : "") + " points=\"";
      for (size_t j : order) out += num(px(s.points[j].x)) + "," + num(py(s.points[j].y)) + " ";
      out += "\"/>";
    }
    for (size_t j : order) {
      const ChartPoint& p = s.points[j];
      if (isOffScale(i, j)) {  // a triangle at the edge, pointing where the value lies
        const double cx = px(p.x), edge = py(p.y), tip = p.y > y.high ? edge - 6 : edge + 6;
        out += "<path class=\"mark outlier\" d=\"M" + num(cx - 6) + " " + num(edge) + " L" + num(cx + 6) +
               " " + num(edge) + " L" + num(cx) + " " + num(tip) + " Z\" fill=\"" + color + "\"><title>" +
               xmlEscape(pointTitle(chart, s, p) + " (off the scale)") + "</title></path>";
        continue;
      }
      if (std::isfinite(p.low) && std::isfinite(p.high) && p.high > p.low) {
        out += "<line class=\"spread\" stroke=\"" + color + "\" x1=\"" + num(px(p.x)) + "\" x2=\"" +
               num(px(p.x)) + "\" y1=\"" + num(py(p.low)) + "\" y2=\"" + num(py(p.high)) + "\"/>";
      }
      if (s.markers) {
        out += marker(s.shape, px(p.x), py(p.y), color, " class=\"mark\"",
                      "<title>" + xmlEscape(pointTitle(chart, s, p)) + "</title>");
      }
    }
    out += "</g>\n";
    if (s.legend) {
      legend.add(s.name, color, s.dashed, false, s.markers ? std::optional(s.shape) : std::nullopt, s.config);
    }
  }
  if (!chart.dashedLegend.empty()) legend.add(chart.dashedLegend, "#555", true, false);
  out += legend.finish();
  double extraHeight = 0;
  const std::string notes = notesBelow(chartNotes(chart, offScale, coincidingSeries(chart)), extraHeight);
  return header(chart.title, "line", extraHeight) + out + notes + "</svg>\n";
}

std::string renderStackedBars(const StackedBarChart& chart) {
  double high = 0;
  for (size_t b = 0; b < chart.bars.size(); ++b) {
    double total = 0;
    for (const auto& layer : chart.values) total += std::max(0.0, std::isfinite(layer[b]) ? layer[b] : 0.0);
    high = std::max(high, total);
  }
  ChartAxis axis{chart.yLabel, 0, TickFormat::kNumber, true};
  const ChartScale y = scaleFor(axis, 0, high);
  auto py = [&](double v) { return kTop + kPlotHeight * (1 - std::clamp(y.fraction(v), 0.0, 1.0)); };
  const double slot = kPlotWidth / static_cast<double>(std::max<size_t>(1, chart.bars.size()));
  // Labels whole: wrapped to the bar's slot (~6 px a character) in up to
  // three lines, else slanted on one line, with room below for the longest.
  const size_t perLine = std::max<size_t>(6, static_cast<size_t>(slot / 6.2));
  std::vector<std::vector<std::string>> labels;
  size_t longest = 0, lines = 1;
  bool slanted = false;
  for (const std::string& b : chart.bars) {
    labels.push_back(wrapText(b, perLine));
    slanted = slanted || labels.back().size() > 3;
    longest = std::max(longest, b.size());
    lines = std::max(lines, labels.back().size());
  }
  const double labelRoom = slanted ? std::min(260.0, 20 + 5.2 * static_cast<double>(longest))
                                   : 13.0 * static_cast<double>(lines - 1);
  std::string out = yAxis(y, axis);
  const double width = std::min(48.0, slot * 0.7);
  for (size_t b = 0; b < chart.bars.size(); ++b) {
    const double cx = kLeft + slot * (static_cast<double>(b) + 0.5);
    double base = 0, total = 0;
    for (const auto& layer : chart.values) total += std::isfinite(layer[b]) ? std::max(0.0, layer[b]) : 0.0;
    for (size_t l = 0; l < chart.layers.size(); ++l) {
      const double v = std::isfinite(chart.values[l][b]) ? std::max(0.0, chart.values[l][b]) : 0.0;
      if (v <= 0) continue;
      out += "<rect class=\"mark\" x=\"" + num(cx - width / 2) + "\" y=\"" + num(py(base + v)) +
             "\" width=\"" + num(width) + "\" height=\"" + num(py(base) - py(base + v)) + "\" fill=\"" +
             paletteColor(static_cast<int>(l)) + "\"><title>" +
             xmlEscape(chart.bars[b] + " — " + chart.layers[l] + ": " +
                       formatValue(v, TickFormat::kNumber, chart.unit) + " of " +
                       formatValue(total, TickFormat::kNumber, chart.unit)) +
             "</title></rect>";
      base += v;
    }
    const double ty = kTop + kPlotHeight + 14;
    if (slanted) {
      out += "<text class=\"tick\" x=\"" + num(cx) + "\" y=\"" + num(ty) +
             "\" text-anchor=\"end\" transform=\"rotate(-35 " + num(cx) + " " + num(ty) + ")\">" +
             xmlEscape(chart.bars[b]) + "</text>\n";
      continue;
    }
    out += "<text class=\"tick\" x=\"" + num(cx) + "\" y=\"" + num(ty) + "\" text-anchor=\"middle\">";
    for (size_t i = 0; i < labels[b].size(); ++i) {
      out += "<tspan x=\"" + num(cx) + "\"" + (i ? " dy=\"13\"" : "") + ">" + xmlEscape(labels[b][i]) +
             "</tspan>";
    }
    out += "</text>\n";
  }
  Legend legend;
  for (size_t l = 0; l < chart.layers.size(); ++l)
    legend.add(chart.layers[l], paletteColor(static_cast<int>(l)), false, true);
  return header(chart.title, "bars", labelRoom) + out + legend.finish() + "</svg>\n";
}

std::string renderGroupedBars(const GroupedBarChart& chart) {
  double high = 0;
  for (const BarSeries& s : chart.series) {
    for (double v : s.values) high = std::isfinite(v) ? std::max(high, v) : high;
  }
  ChartAxis axis{chart.yLabel, 0, TickFormat::kNumber, true};
  const ChartScale y = scaleFor(axis, 0, high);
  auto py = [&](double v) { return kTop + kPlotHeight * (1 - std::clamp(y.fraction(v), 0.0, 1.0)); };
  const double slot = kPlotWidth / static_cast<double>(std::max<size_t>(1, chart.groups.size()));
  const double width =
      std::min(28.0, slot * 0.8 / static_cast<double>(std::max<size_t>(1, chart.series.size())));
  std::string out = yAxis(y, axis);
  for (size_t g = 0; g < chart.groups.size(); ++g) {
    const double cx = kLeft + slot * (static_cast<double>(g) + 0.5);
    out += "<text class=\"tick\" x=\"" + num(cx) + "\" y=\"" + num(kTop + kPlotHeight + 16) +
           "\" text-anchor=\"middle\">" + xmlEscape(chart.groups[g]) + "</text>\n";
  }
  Legend legend;
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const BarSeries& s = chart.series[i];
    const std::string color = paletteColor(s.color >= 0 ? s.color : static_cast<int>(i));
    out += "<g class=\"series\" data-name=\"" + xmlEscape(s.name) + "\"" + configAttribute(s.config) + ">";
    for (size_t g = 0; g < chart.groups.size() && g < s.values.size(); ++g) {
      const double v = s.values[g];
      if (!std::isfinite(v)) continue;
      // The series side by side, centred on the group's slot.
      const double x = kLeft + slot * (static_cast<double>(g) + 0.5) +
                       width * (static_cast<double>(i) - static_cast<double>(chart.series.size()) / 2);
      out += "<rect class=\"mark\" x=\"" + num(x) + "\" y=\"" + num(py(std::max(0.0, v))) + "\" width=\"" +
             num(width) + "\" height=\"" + num(py(0) - py(std::max(0.0, v))) + "\" fill=\"" + color +
             "\"><title>" +
             xmlEscape(s.name + ", " + chart.groups[g] + ": " +
                       formatValue(v, TickFormat::kNumber, chart.unit)) +
             "</title></rect>";
    }
    out += "</g>\n";
    legend.add(s.name, color, false, true, std::nullopt, s.config);
  }
  return header(chart.title, "bars", 0) + out + legend.finish() + "</svg>\n";
}

}  // namespace dtb::core
