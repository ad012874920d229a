#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/report_charts.h"
#include "report/report_format.h"
#include "report/report_tables.h"

namespace dtb::core {
namespace {

constexpr const char* kStyle = R"css(
body { font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 24px auto; max-width: 1500px;
       color: #222; padding: 0 16px; }
h1 { font-size: 24px; margin-bottom: 4px; } h2 { border-bottom: 2px solid #ddd; padding-bottom: 4px; margin-top: 36px; }
h3 { margin-top: 28px; } .meta { color: #555; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 12px; }
svg.chart { max-width: 100%; height: auto; background: #fff; border: 1px solid #e3e3e3; }
svg .title { font-size: 14px; font-weight: 600; } svg .tick { font-size: 11px; fill: #444; }
svg .axis { font-size: 12px; fill: #222; } svg .legend text { font-size: 11px; }
svg .grid { stroke: #eee; } svg .grid.minor { stroke: #f5f5f5; } svg .note { font-size: 11px; fill: #8a4b00; } svg rect.plot { fill: none; stroke: #bbb; } svg .spread { stroke-width: 1.5; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; } th { background: #f5f5f5; }
td:first-child, th:first-child { text-align: left; } .faster { color: #1a7f37; } .slower { color: #c62828; }
.note { color: #666; font-size: 12px; }
)css";

// In the page, not needed to read it: marks each chart with how many data
// marks a browser laid out inside its plot area (the browser test reads it).
constexpr const char* kSelfCheck = R"js(
(function () {
  var empty = 0, charts = document.querySelectorAll('svg.chart');
  charts.forEach(function (svg) {
    var plot = svg.querySelector('rect.plot').getBBox(), inside = 0;
    svg.querySelectorAll('.mark').forEach(function (m) {
      var b = m.getBBox(), cx = b.x + b.width / 2, cy = b.y + b.height / 2;
      if ((b.width > 0 || b.height > 0) && cx >= plot.x - 1 && cx <= plot.x + plot.width + 1 &&
          cy >= plot.y - 1 && cy <= plot.y + plot.height + 1) inside++;
    });
    svg.setAttribute('data-marks-in-plot', inside);
    if (inside === 0) empty++;
  });
  document.body.setAttribute('data-charts', charts.length);
  document.body.setAttribute('data-empty-charts', empty);
})();
)js";

std::string esc(const std::string& s) { return xmlEscape(s); }

std::string table(const ReportTable& t) {
  std::string out = "<table><tr>";
  for (const std::string& h : t.headers) out += "<th>" + esc(h) + "</th>";
  out += "</tr>\n";
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const std::string css = r < t.rowClass.size() ? t.rowClass[r] : "";
    out += "<tr>";
    for (size_t c = 0; c < t.rows[r].size(); ++c) {
      const bool classed = !css.empty() && std::find(t.classedColumns.begin(), t.classedColumns.end(), c) !=
                                               t.classedColumns.end();
      out += (classed ? "<td class=\"" + css + "\">" : std::string("<td>")) + esc(t.rows[r][c]) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

// The answer first: which configuration to use per model and world size, and why.
std::string verdictSection(const ReportData& data) {
  std::string out =
      "<section class=\"verdict\"><h2>Verdict: which configuration, and why</h2>\n<p class=\"note\">" +
      esc(kVerdictNote) + "</p>\n";
  for (const ReportExperiment& x : data.experiments) {
    const ReportTable t = verdictTable(data, x.id);
    if (t.rows.empty()) continue;
    if (data.experiments.size() > 1)
      out += "<h3>" + esc(x.name) + " <small>(experiment " + std::to_string(x.id) + ")</small></h3>\n";
    out += table(t);
  }
  return out + "</section>\n";
}

std::string comparisonSection(const ReportInput& in) {
  const auto [a, b] = *in.compared;
  std::string out =
      "<h2>Comparison: experiment " + std::to_string(b) + " against " + std::to_string(a) + "</h2>\n";
  out +=
      "<p class=\"note\">Cells both experiments ran (same configuration and world size). A change counts "
      "when "
      "the repeats of B lie wholly above or below those of A; with one repeat on either side the noise is "
      "unknown. Query: reports/queries/80_compare.sql.</p>\n";
  if (in.comparison->empty()) return out + "<p>No cell in common.</p>\n";
  return out + table(comparisonTable(*in.comparison));
}

}  // namespace

std::string renderHtml(const ReportInput& in) {
  const ReportData& data = *in.data;
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>dtbench report</title>"
      "<style>" +
      std::string(kStyle) + "</style></head>\n<body>\n<h1>dtbench report</h1>\n";
  out += "<p class=\"meta\">" + esc(in.database) + " — " + std::to_string(data.experiments.size()) +
         " experiment(s). Every figure comes from the store through the SQL in reports/queries/ "
         "(dtbench report --sql-dir uses your own copies).</p>\n";
  out += verdictSection(data);
  if (in.compared) out += comparisonSection(in);
  for (const ReportExperiment& x : data.experiments) {
    out += "<section class=\"experiment\"><h2>" + esc(x.name) + " <small>(experiment " +
           std::to_string(x.id) + ")</small></h2>\n<p class=\"meta\">" + esc(x.description) + "<br>" +
           std::to_string(x.runs) + " runs: " + std::to_string(x.ok) + " ok, " + std::to_string(x.failed) +
           " failed — " + esc(x.createdAt) + " on " + esc(x.host) + ", dtbench " + esc(x.version) + ", " +
           esc(x.matrixPath) + "</p>\n";
    for (const std::string& model : data.models(x.id)) {
      out += "<h3>" + esc(model) + "</h3>\n" + table(keyFigureTable(data, x.id, model)) +
             "<div class=\"charts\">\n";
      for (const LineChart& c : scalingCharts(data, x.id, model)) out += renderLineChart(c);
      for (const StackedBarChart& c : breakdownCharts(data, x.id, model)) out += renderStackedBars(c);
      for (const LineChart& c : accuracyCharts(data, x.id, model)) out += renderLineChart(c);
      for (const StackedBarChart& c : memoryCharts(data, x.id, model)) out += renderStackedBars(c);
      out += "</div>\n<details><summary>the numbers behind the step-time and memory charts</summary>\n" +
             table(breakdownTable(data, x.id, model)) + table(memoryTable(data, x.id, model)) +
             "</details>\n";
    }
    if (const ReportTable recovery = recoveryTable(data, x.id); !recovery.rows.empty()) {
      out += "<h3>Recovery from failed ranks</h3>\n<p class=\"meta\">" + esc(kRecoveryNote) + "</p>\n" +
             table(recovery);
    }
    if (const std::vector<LineChart> timelines = timelineCharts(data, x.id); !timelines.empty()) {
      out += "<h3>Throughput over time, faults marked</h3>\n<p class=\"meta\">" + esc(kTimelineNote) +
             "</p>\n<div class=\"charts\">\n";
      for (const LineChart& c : timelines) out += renderLineChart(c);
      out += "</div>\n";
    }
    const std::vector<LineChart> bandwidth = bandwidthCharts(data, x.id);
    if (!bandwidth.empty()) {
      out += "<h3>Collective sweeps</h3>\n" + table(bandwidthSummaryTable(data, x.id)) +
             "<div class=\"charts\">\n";
      for (const LineChart& c : bandwidth) out += renderLineChart(c);
      out += "</div>\n<details><summary>every size</summary>\n" + table(bandwidthTable(data, x.id)) +
             "</details>\n";
    }
    out += "</section>\n";
  }
  return out + "<script>" + kSelfCheck + "</script>\n</body></html>\n";
}

std::string formatNumber(double value, int decimals) {
  if (!std::isfinite(value)) return "—";
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f", decimals, value);
  std::string s = text;
  // Thousands separators on the whole part.
  const size_t dot = s.find('.');
  const size_t start = s[0] == '-' ? 1 : 0;
  for (long i = static_cast<long>(dot == std::string::npos ? s.size() : dot) - 3;
       i > static_cast<long>(start); i -= 3) {
    s.insert(static_cast<size_t>(i), ",");
  }
  return s;
}

std::string formatSpread(double low, double high, int decimals) {
  if (!std::isfinite(low) || !std::isfinite(high)) return "—";
  return "[" + formatNumber(low, decimals) + " – " + formatNumber(high, decimals) + "]";
}

}  // namespace dtb::core
