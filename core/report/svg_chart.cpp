#include "report/svg_chart.h"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace dtb::core {
namespace {

constexpr double kWidth = 720, kHeight = 380;
constexpr double kLeft = 76, kRight = 236, kTop = 40, kBottom = 56;
constexpr double kPlotWidth = kWidth - kLeft - kRight, kPlotHeight = kHeight - kTop - kBottom;
constexpr int kMaxLegend = 13;  // entries that fit beside the plot

std::string num(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f", v);
  return text;
}

// The palette's i-th colour (cycled).
const char* paletteColor(int index) {
  static const char* kColors[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                  "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#7f7f7f"};
  return kColors[((index % 10) + 10) % 10];
}

// A mapping from data to pixels along one axis, with its ticks.
struct Scale {
  double low = 0, high = 1;
  int logBase = 0;
  bool integers = false;

  double fraction(double v) const {
    if (logBase > 0) return (std::log(v) - std::log(low)) / (std::log(high) - std::log(low));
    return (v - low) / (high - low);
  }

  std::vector<double> ticks() const {
    std::vector<double> out;
    if (logBase > 0) {
      const double base = logBase;
      // At most ~8 ticks: every power of the base, or every n-th one.
      const double decades = std::log(high / low) / std::log(base);
      const int stride = std::max(1, static_cast<int>(std::ceil(decades / 8)));
      for (double t = std::pow(base, std::floor(std::log(low) / std::log(base) + 1e-9));
           t <= high * (1 + 1e-9); t *= std::pow(base, stride)) {
        if (t >= low * (1 - 1e-9)) out.push_back(t);
      }
      return out;
    }
    const double span = high - low;
    const double raw = span / 5;
    const double magnitude = std::pow(10, std::floor(std::log10(raw)));
    double nice = magnitude;
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
      if (m * magnitude >= raw) {
        nice = m * magnitude;
        break;
      }
    }
    if (integers) nice = std::max(1.0, std::ceil(nice));
    for (double t = std::ceil(low / nice) * nice; t <= high + nice * 1e-9; t += nice) out.push_back(t);
    return out;
  }
};

Scale scaleFor(const ChartAxis& axis, double low, double high) {
  Scale s;
  s.logBase = axis.logBase;
  s.integers = axis.integers;
  if (!(low <= high)) low = high = axis.logBase > 0 ? 1 : 0;  // no data
  if (axis.logBase > 0) {
    low = std::max(low, 1e-12);
    const double base = axis.logBase;
    s.low = std::pow(base, std::floor(std::log(low) / std::log(base) + 1e-9));
    s.high = std::pow(base, std::ceil(std::log(std::max(high, low)) / std::log(base) - 1e-9));
    if (s.high <= s.low) s.high = s.low * base;
    return s;
  }
  if (axis.fromZero) low = std::min(low, 0.0);
  if (high <= low) high = low + 1;
  const double pad = (high - low) * 0.05;
  s.low = axis.fromZero && low >= 0 ? low : low - pad;
  s.high = high + pad;
  return s;
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

std::string yAxis(const Scale& y, const ChartAxis& axis) {
  std::string out;
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

std::string legendEntry(int index, const std::string& name, const std::string& color, bool dashed, bool box) {
  const double y = kTop + 8 + 18 * index;
  const double x = kLeft + kPlotWidth + 14;
  std::string shown = name.size() > 34 ? name.substr(0, 33) + "…" : name;
  std::string swatch = box ? "<rect x=\"" + num(x) + "\" y=\"" + num(y - 9) +
                                 "\" width=\"16\" height=\"10\" fill=\"" + color + "\"/>"
                           : "<line x1=\"" + num(x) + "\" x2=\"" + num(x + 16) + "\" y1=\"" + num(y - 4) +
                                 "\" y2=\"" + num(y - 4) + "\" stroke=\"" + color + "\" stroke-width=\"2\"" +
                                 (dashed ? " stroke-dasharray=\"5 3\"" : "") + "/>";
  return "<g class=\"legend\">" + swatch + "<text x=\"" + num(x + 22) + "\" y=\"" + num(y) + "\"><title>" +
         xmlEscape(name) + "</title>" + xmlEscape(shown) + "</text></g>\n";
}

}  // namespace

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

std::string renderLineChart(const LineChart& chart) {
  double xLow = std::numeric_limits<double>::infinity(), xHigh = -xLow, yLow = xLow, yHigh = -xLow;
  for (const ChartSeries& s : chart.series) {
    for (const ChartPoint& p : s.points) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
      if (chart.x.logBase > 0 && p.x <= 0) continue;
      if (chart.y.logBase > 0 && p.y <= 0) continue;
      xLow = std::min(xLow, p.x);
      xHigh = std::max(xHigh, p.x);
      yLow = std::min({yLow, p.y, std::isfinite(p.low) ? p.low : p.y});
      yHigh = std::max({yHigh, p.y, std::isfinite(p.high) ? p.high : p.y});
    }
  }
  Scale x = scaleFor(chart.x, xLow, xHigh);
  if (xLow == xHigh && std::isfinite(xLow)) {  // one x value: centre it
    x.low = chart.x.logBase > 0 ? xLow / chart.x.logBase : xLow - 1;
    x.high = chart.x.logBase > 0 ? xLow * chart.x.logBase : xLow + 1;
  }
  const Scale y = scaleFor(chart.y, yLow, yHigh);
  auto px = [&](double v) { return kLeft + kPlotWidth * std::clamp(x.fraction(v), 0.0, 1.0); };
  auto py = [&](double v) { return kTop + kPlotHeight * (1 - std::clamp(y.fraction(v), 0.0, 1.0)); };

  std::string out = header(chart.title, "line");
  out += yAxis(y, chart.y);
  for (double t : x.ticks()) {
    out += "<line class=\"grid\" x1=\"" + num(px(t)) + "\" x2=\"" + num(px(t)) + "\" y1=\"" + num(kTop) +
           "\" y2=\"" + num(kTop + kPlotHeight) + "\"/><text class=\"tick\" x=\"" + num(px(t)) + "\" y=\"" +
           num(kTop + kPlotHeight + 16) + "\" text-anchor=\"middle\">" +
           xmlEscape(formatTick(t, chart.x.format)) + "</text>\n";
  }
  out += "<text class=\"axis\" x=\"" + num(kLeft + kPlotWidth / 2) + "\" y=\"" + num(kHeight - 12) +
         "\" text-anchor=\"middle\">" + xmlEscape(chart.x.label + (chart.x.logBase ? " (log)" : "")) +
         "</text>\n";
  int legend = 0;
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const ChartSeries& s = chart.series[i];
    const std::string color = paletteColor(s.color >= 0 ? s.color : static_cast<int>(i));
    std::vector<ChartPoint> points;
    for (const ChartPoint& p : s.points) {
      const bool drawable = std::isfinite(p.x) && std::isfinite(p.y) && (chart.x.logBase == 0 || p.x > 0) &&
                            (chart.y.logBase == 0 || p.y > 0);
      if (drawable) points.push_back(p);
    }
    std::sort(points.begin(), points.end(),
              [](const ChartPoint& a, const ChartPoint& b) { return a.x < b.x; });
    if (points.empty()) continue;
    out += "<g class=\"series\" data-name=\"" + xmlEscape(s.name) + "\">";
    if (points.size() > 1) {
      out += "<polyline class=\"line\" fill=\"none\" stroke=\"" + color + "\" stroke-width=\"2\"" +
             (s.dashed ? " stroke-dasharray=\"5 3\"" : "") + " points=\"";
      for (const ChartPoint& p : points) out += num(px(p.x)) + "," + num(py(p.y)) + " ";
      out += "\"/>";
    }
    for (const ChartPoint& p : points) {
      if (std::isfinite(p.low) && std::isfinite(p.high) && p.high > p.low) {
        out += "<line class=\"spread\" stroke=\"" + color + "\" x1=\"" + num(px(p.x)) + "\" x2=\"" +
               num(px(p.x)) + "\" y1=\"" + num(py(p.low)) + "\" y2=\"" + num(py(p.high)) + "\"/>";
      }
      if (s.markers) {
        out += "<circle class=\"mark\" cx=\"" + num(px(p.x)) + "\" cy=\"" + num(py(p.y)) +
               "\" r=\"3.5\" fill=\"" + color + "\"><title>" + xmlEscape(s.name) + ": " +
               formatTick(p.x, chart.x.format) + " → " + formatTick(p.y, chart.y.format) +
               "</title></circle>";
      }
    }
    out += "</g>\n";
    if (!s.legend) continue;
    if (legend < kMaxLegend) out += legendEntry(legend, s.name, color, s.dashed, false);
    ++legend;
  }
  if (!chart.dashedLegend.empty())
    out += legendEntry(std::min(legend, kMaxLegend), chart.dashedLegend, "#555", true, false);
  if (legend > kMaxLegend) {
    out += legendEntry(kMaxLegend + 1, "+" + std::to_string(legend - kMaxLegend) + " more (hover the points)",
                       "#fff", false, false);
  }
  return out + "</svg>\n";
}

std::string renderStackedBars(const StackedBarChart& chart) {
  double high = 0;
  for (size_t b = 0; b < chart.bars.size(); ++b) {
    double total = 0;
    for (const auto& layer : chart.values) total += std::max(0.0, std::isfinite(layer[b]) ? layer[b] : 0.0);
    high = std::max(high, total);
  }
  ChartAxis axis{chart.yLabel, 0, TickFormat::kNumber, true};
  const Scale y = scaleFor(axis, 0, high);
  auto py = [&](double v) { return kTop + kPlotHeight * (1 - std::clamp(y.fraction(v), 0.0, 1.0)); };
  // Labels slant when they would not fit side by side (~6 px a character).
  size_t longest = 0;
  for (const std::string& b : chart.bars) longest = std::max(longest, std::min<size_t>(b.size(), 28));
  const bool slanted =
      static_cast<double>(longest) * 6.2 > kPlotWidth / std::max<size_t>(1, chart.bars.size());
  std::string out = header(chart.title, "bars", slanted ? 110 : 0);
  out += yAxis(y, axis);
  const double slot = kPlotWidth / std::max<size_t>(1, chart.bars.size());
  const double width = std::min(48.0, slot * 0.7);
  for (size_t b = 0; b < chart.bars.size(); ++b) {
    const double cx = kLeft + slot * (static_cast<double>(b) + 0.5);
    double base = 0;
    for (size_t l = 0; l < chart.layers.size(); ++l) {
      const double v = std::isfinite(chart.values[l][b]) ? std::max(0.0, chart.values[l][b]) : 0.0;
      if (v <= 0) continue;
      out += "<rect class=\"mark\" x=\"" + num(cx - width / 2) + "\" y=\"" + num(py(base + v)) +
             "\" width=\"" + num(width) + "\" height=\"" + num(py(base) - py(base + v)) + "\" fill=\"" +
             paletteColor(static_cast<int>(l)) + "\"><title>" + xmlEscape(chart.bars[b]) + " — " +
             xmlEscape(chart.layers[l]) + ": " + formatTick(v, TickFormat::kNumber) + "</title></rect>";
      base += v;
    }
    std::string label = chart.bars[b].size() > 28 ? chart.bars[b].substr(0, 27) + "…" : chart.bars[b];
    const double ty = kTop + kPlotHeight + 14;
    out += "<text class=\"tick\" x=\"" + num(cx) + "\" y=\"" + num(ty) + "\"" +
           (slanted ? " text-anchor=\"end\" transform=\"rotate(-35 " + num(cx) + " " + num(ty) + ")\""
                    : " text-anchor=\"middle\"") +
           "><title>" + xmlEscape(chart.bars[b]) + "</title>" + xmlEscape(label) + "</text>\n";
  }
  for (size_t l = 0; l < chart.layers.size(); ++l) {
    out += legendEntry(static_cast<int>(l), chart.layers[l], paletteColor(static_cast<int>(l)), false, true);
  }
  return out + "</svg>\n";
}

}  // namespace dtb::core
