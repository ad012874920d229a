#include <cmath>
#include <map>
#include <tuple>

#include "report/report_format.h"
#include "report/svg_chart.h"

namespace dtb::core {
namespace {

std::string cell(std::string text) {
  for (char& c : text) {
    if (c == '|') c = '/';
  }
  return text;
}

std::string keyFigures(const ReportData& data, int64_t experiment, const std::string& model) {
  std::string out =
      "| configuration | ranks | repeats | samples/s | [min – max] | ms/step | speed-up | efficiency | test acc | "
      "[min – max] | failed |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n";
  for (const KeyFigureRow& r : data.keyFigures) {
    const ReportConfig* c = data.config(r.experiment, r.key);
    if (r.experiment != experiment || !c || c->model != model) continue;
    out += "| " + cell(c->label) + " | " + std::to_string(r.world) + " | " + std::to_string(r.repeats) + " | " +
           formatNumber(r.median, 1) + " | " + formatSpread(r.low, r.high, 1) + " | " + formatNumber(r.msPerStep, 2) +
           " | " + formatNumber(r.speedup, 2) + " | " +
           (std::isfinite(r.efficiency) ? formatNumber(100 * r.efficiency, 0) + " %" : "—") + " | " +
           formatNumber(r.accuracy, 4) + " | " + formatSpread(r.accuracyLow, r.accuracyHigh, 4) + " | " +
           std::to_string(r.failed) + " |\n";
  }
  return out;
}

// Per collective, backend, ranks and dtype: busbw at the smallest and the
// largest size, and the peak with its size.
std::string bandwidthSummary(const ReportData& data, int64_t experiment) {
  struct Summary {
    const BandwidthRow *smallest = nullptr, *largest = nullptr, *peak = nullptr;
  };
  std::map<std::tuple<std::string, std::string, int, std::string>, Summary> groups;
  for (const BandwidthRow& r : data.bandwidth) {
    if (r.experiment != experiment) continue;
    Summary& s = groups[{r.op, r.backend, r.ranks, r.dtype}];
    if (!s.smallest || r.bytes < s.smallest->bytes) s.smallest = &r;
    if (!s.largest || r.bytes > s.largest->bytes) s.largest = &r;
    if (!s.peak || r.busbw > s.peak->busbw) s.peak = &r;
  }
  if (groups.empty()) return "";
  std::string out =
      "### Collective sweeps\n\n| collective | backend | ranks | dtype | smallest: time (µs) | largest: busbw (GB/s) | "
      "peak busbw (GB/s) | at | peak of memcpy | #wrong |\n|---|---|--:|---|--:|--:|--:|--:|--:|--:|\n";
  for (const auto& [key, s] : groups) {
    int64_t wrong = 0;
    for (const BandwidthRow& r : data.bandwidth) {
      if (r.experiment == experiment && std::tie(r.op, r.backend, r.ranks, r.dtype) == key) wrong += r.wrong;
    }
    out += "| " + std::get<0>(key) + " | " + std::get<1>(key) + " | " + std::to_string(std::get<2>(key)) + " | " +
           std::get<3>(key) + " | " + formatNumber(s.smallest->timeUs, 1) + " | " + formatNumber(s.largest->busbw, 3) +
           " | " + formatNumber(s.peak->busbw, 3) + " | " + formatTick(s.peak->bytes, TickFormat::kBytes) + " | " +
           (std::isfinite(s.peak->memcpy) ? formatNumber(100 * s.peak->busbw / s.peak->memcpy, 1) + " %" : "—") +
           " | " + std::to_string(wrong) + " |\n";
  }
  return out + "\n";
}

}  // namespace

std::string renderMarkdown(const ReportInput& in) {
  const ReportData& data = *in.data;
  std::string out = "# dtbench report\n\n" + in.database + " — every figure from the SQL in reports/queries/.\n\n";
  if (in.compared) {
    const auto [a, b] = *in.compared;
    out += "## Comparison: experiment " + std::to_string(b) + " against " + std::to_string(a) +
           "\n\nA change counts when B's repeats lie wholly above (faster) or below (slower) A's.\n\n";
    if (in.comparison->empty()) {
      out += "No cell in common.\n\n";
    } else {
      out += "| configuration | model | ranks | A samples/s | B samples/s | change | repeat noise | verdict | test acc change |\n"
             "|---|---|--:|--:|--:|--:|--:|---|--:|\n";
      for (const ComparisonRow& r : *in.comparison) {
        out += "| " + cell(r.label) + " | " + r.model + " | " + std::to_string(r.world) + " | " + formatNumber(r.a, 1) +
               " | " + formatNumber(r.b, 1) + " | " + formatNumber(100 * r.change, 1) + " % | " +
               formatNumber(100 * r.noise, 1) + " % | " + r.verdict + " | " + formatNumber(r.accuracyChange, 4) + " |\n";
      }
      out += "\n";
    }
  }
  for (const ReportExperiment& x : data.experiments) {
    out += "## " + x.name + " (experiment " + std::to_string(x.id) + ")\n\n" +
           (x.description.empty() ? "" : x.description + "\n\n") + std::to_string(x.runs) + " runs: " +
           std::to_string(x.ok) + " ok, " + std::to_string(x.failed) + " failed; " + x.createdAt + " on " + x.host +
           "\n\n";
    for (const std::string& model : data.models(x.id)) out += "### " + model + "\n\n" + keyFigures(data, x.id, model) + "\n";
    out += bandwidthSummary(data, x.id);
  }
  return out;
}

}  // namespace dtb::core
