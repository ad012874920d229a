#include "report/chart_notes.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace dtb::core {
namespace {

double quantile(const std::vector<double>& sorted, double q) {
  const double at = q * static_cast<double>(sorted.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(at));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (sorted[above] - sorted[below]) * (at - static_cast<double>(below));
}

}  // namespace

std::vector<OffScalePoint> offScalePoints(const LineChart& chart) {
  if (chart.y.logBase > 0) return {};
  std::vector<double> ys;
  for (const ChartSeries& s : chart.series) {
    if (s.dashed) continue;
    for (const ChartPoint& p : s.points) {
      if (isDrawable(chart, p)) ys.push_back(p.y);
    }
  }
  if (ys.size() < 4) return {};
  std::sort(ys.begin(), ys.end());
  const double q1 = quantile(ys, 0.25), q3 = quantile(ys, 0.75);
  const double spread = q3 > q1 ? q3 - q1 : 0.1 * std::abs(quantile(ys, 0.5));
  if (spread <= 0) return {};
  const double high = q3 + 3 * spread, low = q1 - 3 * spread;
  std::vector<OffScalePoint> out;
  for (size_t i = 0; i < chart.series.size(); ++i) {
    if (chart.series[i].dashed) continue;
    for (size_t j = 0; j < chart.series[i].points.size(); ++j) {
      const ChartPoint& p = chart.series[i].points[j];
      if (!isDrawable(chart, p)) continue;
      if (p.y > high) out.push_back({i, j, true});
      // Below: only where the axis would not start at 0 anyway.
      if (p.y < low && !(chart.y.fromZero && p.y >= 0)) out.push_back({i, j, false});
    }
  }
  return out;
}

std::vector<std::vector<size_t>> coincidingSeries(const LineChart& chart) {
  std::map<std::string, std::vector<size_t>> bySignature;
  std::vector<std::string> order;
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const ChartSeries& s = chart.series[i];
    if (s.dashed || !s.legend) continue;
    std::vector<std::pair<double, double>> points;
    for (const ChartPoint& p : s.points) {
      if (isDrawable(chart, p)) points.emplace_back(p.x, p.y);
    }
    if (points.empty()) continue;
    std::sort(points.begin(), points.end());
    std::string signature;
    for (const auto& [x, y] : points) {
      char text[64];
      std::snprintf(text, sizeof(text), "%.6g,%.6g;", x, y);
      signature += text;
    }
    auto [it, fresh] = bySignature.try_emplace(signature);
    if (fresh) order.push_back(signature);
    it->second.push_back(i);
  }
  std::vector<std::vector<size_t>> out;
  for (const std::string& signature : order) {
    if (bySignature[signature].size() > 1) out.push_back(bySignature[signature]);
  }
  return out;
}

std::vector<std::string> chartNotes(const LineChart& chart, const std::vector<OffScalePoint>& offScale,
                                    const std::vector<std::vector<size_t>>& coinciding) {
  std::vector<std::string> notes;
  if (!offScale.empty()) {
    std::string which;
    for (const OffScalePoint& o : offScale) {
      const ChartSeries& s = chart.series[o.series];
      const ChartPoint& p = s.points[o.point];
      which += (which.empty() ? "" : "; ") + s.name + " at " +
               formatValue(p.x, chart.x.format, chart.x.unit) + ": " +
               formatValue(p.y, chart.y.format, chart.y.unit);
    }
    const bool one = offScale.size() == 1;
    notes.push_back((one ? std::string("1 point lies") : std::to_string(offScale.size()) + " points lie") +
                    " far off the others and " + (one ? "is" : "are") +
                    " drawn at the edge (▲/▼), not to scale: " + which);
  }
  for (const std::vector<size_t>& group : coinciding) {
    std::string names;
    for (size_t i : group) names += (names.empty() ? "" : " = ") + chart.series[i].name;
    notes.push_back(std::to_string(group.size()) + " lines coincide and draw as one: " + names);
  }
  return notes;
}

}  // namespace dtb::core
