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
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; } th { background: #f5f5f5; }
th.r, td.r { text-align: right; font-variant-numeric: tabular-nums; }
.faster { color: #1a7f37; } .slower { color: #c62828; } .inconclusive { color: #8a4b00; }
.note { color: #666; font-size: 12px; }
ul.decisions { padding-left: 20px; } ul.decisions li { margin: 6px 0; } .decision { font-size: 15px; }
.why { color: #444; } .missed { color: #8a4b00; }
)css";

// In the page, not needed to read it: marks each chart with how many data
// marks a browser laid out inside its plot area, and the page with the
// colour the browser drew each configuration in, chart by chart (the
// browser test reads both).
constexpr const char* kSelfCheck = R"js(
(function () {
  var colours = {}, clashes = 0, summary = [];
  document.querySelectorAll('svg.chart [data-config]').forEach(function (el) {
    var m = el.matches('circle, rect, path, polyline, line') ? el
          : el.querySelector('circle, rect, path, polyline, line');
    if (!m) return;
    var style = getComputedStyle(m), name = el.getAttribute('data-config');
    var colour = (m.tagName === 'line' || m.tagName === 'polyline') ? style.stroke : style.fill;
    var seen = colours[name] || (colours[name] = {colours: {}, charts: new Set()});
    seen.colours[colour] = true;
    seen.charts.add(el.closest('svg.chart'));
  });
  Object.keys(colours).sort().forEach(function (name) {
    var list = Object.keys(colours[name].colours);
    if (list.length > 1) clashes++;
    summary.push(name + ': ' + list.join(' / ') + ' in ' + colours[name].charts.size + ' charts');
  });
  document.body.setAttribute('data-config-colours', summary.join('; '));
  document.body.setAttribute('data-colour-clashes', clashes);
})();
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

// A cell's tag: numbers right-aligned (class "r"), text left, with the
// row's class where the table says the column carries it.
std::string cellTag(const char* tag, bool right, const std::string& rowClass) {
  const std::string classes =
      std::string(right ? "r" : "") + (right && !rowClass.empty() ? " " : "") + rowClass;
  return "<" + std::string(tag) + (classes.empty() ? "" : " class=\"" + classes + "\"") + ">";
}

std::string htmlTable(const ReportTable& t) {
  auto right = [&](size_t c) { return c < t.align.size() && t.align[c] == 'r'; };
  std::string out = "<table><tr>";
  for (size_t c = 0; c < t.headers.size(); ++c)
    out += cellTag("th", right(c), "") + esc(t.headers[c]) + "</th>";
  out += "</tr>\n";
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const std::string css = r < t.rowClass.size() ? t.rowClass[r] : "";
    out += "<tr>";
    for (size_t c = 0; c < t.rows[r].size(); ++c) {
      const bool classed = !css.empty() && std::find(t.classedColumns.begin(), t.classedColumns.end(), c) !=
                                               t.classedColumns.end();
      out += cellTag("td", right(c), classed ? css : "") + esc(t.rows[r][c]) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

// The answer first: per model and world size, the decision as the
// headline, the measured reason, what missed the accuracy; then the figures.
std::string verdictSection(const ReportData& data) {
  std::string out =
      "<section class=\"verdict\"><h2>Verdict: which configuration, and why</h2>\n<p class=\"note\">" +
      esc(kVerdictNote) + "</p>\n";
  for (const ReportExperiment& x : data.experiments) {
    const std::vector<VerdictHeadline> headlines = verdictHeadlines(data, x.id);
    if (headlines.empty()) continue;
    if (data.experiments.size() > 1)
      out += "<h3>" + esc(x.name) + " <small>(experiment " + std::to_string(x.id) + ")</small></h3>\n";
    out += "<ul class=\"decisions\">\n";
    for (const VerdictHeadline& h : headlines) {
      out += "<li><strong class=\"decision\">" + esc(h.where) + ": " + esc(h.decision) + "</strong>";
      if (!h.why.empty()) out += "<br><span class=\"why\">" + esc(h.why) + "</span>";
      if (!h.missed.empty()) out += "<br><span class=\"missed\">" + esc(h.missed) + "</span>";
      out += "</li>\n";
    }
    out += "</ul>\n" + htmlTable(verdictTable(data, x.id));
  }
  return out + "</section>\n";
}

std::string comparisonSection(const ReportInput& in) {
  const auto [a, b] = *in.compared;
  std::string out =
      "<h2>Comparison: experiment " + std::to_string(b) + " against " + std::to_string(a) + "</h2>\n";
  out += "<p class=\"note\">" + esc(kComparisonNote) + "</p>\n";
  if (in.comparison->empty()) return out + "<p>No cell in common.</p>\n";
  return out + htmlTable(comparisonTable(*in.comparison));
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
      out += "<h3>" + esc(model) + "</h3>\n" + htmlTable(keyFigureTable(data, x.id, model)) +
             "<div class=\"charts\">\n";
      for (const LineChart& c : scalingCharts(data, x.id, model)) out += renderLineChart(c);
      for (const LineChart& c : projectionCharts(data, x.id, model)) out += renderLineChart(c);
      for (const GroupedBarChart& c : busBytesCharts(data, x.id, model)) out += renderGroupedBars(c);
      for (const StackedBarChart& c : breakdownCharts(data, x.id, model)) out += renderStackedBars(c);
      for (const LineChart& c : accuracyCharts(data, x.id, model)) out += renderLineChart(c);
      for (const StackedBarChart& c : memoryCharts(data, x.id, model)) out += renderStackedBars(c);
      out += "</div>\n<details><summary>the numbers behind the step-time and memory charts</summary>\n" +
             htmlTable(breakdownTable(data, x.id, model)) + htmlTable(memoryTable(data, x.id, model)) +
             "</details>\n";
    }
    if (const ReportTable recovery = recoveryTable(data, x.id); !recovery.rows.empty()) {
      out += "<h3>Recovery from failed ranks</h3>\n<p class=\"meta\">" + esc(kRecoveryNote) + "</p>\n" +
             htmlTable(recovery);
    }
    if (const std::vector<LineChart> timelines = timelineCharts(data, x.id); !timelines.empty()) {
      out += "<h3>Throughput over time, faults marked</h3>\n<p class=\"meta\">" + esc(kTimelineNote) +
             "</p>\n<div class=\"charts\">\n";
      for (const LineChart& c : timelines) out += renderLineChart(c);
      out += "</div>\n";
    }
    const std::vector<LineChart> bandwidth = bandwidthCharts(data, x.id);
    if (!bandwidth.empty()) {
      out += "<h3>Collective sweeps</h3>\n" + htmlTable(bandwidthSummaryTable(data, x.id)) +
             "<div class=\"charts\">\n";
      for (const LineChart& c : bandwidth) out += renderLineChart(c);
      out += "</div>\n<details><summary>every size</summary>\n" + htmlTable(bandwidthTable(data, x.id)) +
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

std::string formatSignificant(double value, int digits) {
  if (!std::isfinite(value)) return "—";
  if (value == 0) return "0";
  const int decimals = static_cast<int>(digits - 1 - std::floor(std::log10(std::abs(value))));
  return formatNumber(value, std::clamp(decimals, 0, 6));
}

std::string formatSpread(double low, double high, int decimals) {
  if (!std::isfinite(low) || !std::isfinite(high)) return "—";
  return "[" + formatNumber(low, decimals) + " – " + formatNumber(high, decimals) + "]";
}

}  // namespace dtb::core
