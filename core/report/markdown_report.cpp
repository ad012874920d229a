#include "report/report_format.h"
#include "report/report_tables.h"

namespace dtb::core {
namespace {

std::string cell(std::string text) {
  for (char& c : text) {
    if (c == '|') c = '/';
  }
  return text;
}

std::string markdownTable(const ReportTable& t) {
  std::string out = "|", rule = "|";
  for (size_t c = 0; c < t.headers.size(); ++c) {
    out += " " + cell(t.headers[c]) + " |";
    rule += c < t.align.size() && t.align[c] == 'r' ? "---:|" : ":---|";
  }
  out += "\n" + rule + "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (const std::string& text : row) out += " " + cell(text) + " |";
    out += "\n";
  }
  return out;
}

}  // namespace

std::string renderMarkdown(const ReportInput& in) {
  const ReportData& data = *in.data;
  std::string out =
      "# dtbench report\n\n" + in.database + " — every figure from the SQL in reports/queries/.\n\n";
  out += std::string("## Verdict: which configuration, and why\n\n") + kVerdictNote + "\n\n";
  for (const ReportExperiment& x : data.experiments) {
    const std::vector<VerdictHeadline> headlines = verdictHeadlines(data, x.id);
    if (headlines.empty()) continue;
    if (data.experiments.size() > 1)
      out += "### " + x.name + " (experiment " + std::to_string(x.id) + ")\n\n";
    for (const VerdictHeadline& h : headlines) {
      // Lines ending in two spaces: one list item, broken where each part starts.
      out += "- **" + h.where + ": " + h.decision + "**";
      if (!h.why.empty()) out += "  \n  " + h.why;
      if (!h.missed.empty()) out += "  \n  " + h.missed;
      out += "\n";
    }
    out += "\n" + markdownTable(verdictTable(data, x.id)) + "\n";
  }
  if (in.compared) {
    const auto [a, b] = *in.compared;
    out += "## Comparison: experiment " + std::to_string(b) + " against " + std::to_string(a) + "\n\n" +
           kComparisonNote + "\n\n";
    if (in.comparison->empty()) {
      out += "No cell in common.\n\n";
    } else {
      out += markdownTable(comparisonTable(*in.comparison)) + "\n";
    }
  }
  for (const ReportExperiment& x : data.experiments) {
    out += "## " + x.name + " (experiment " + std::to_string(x.id) + ")\n\n" +
           (x.description.empty() ? "" : x.description + "\n\n") + std::to_string(x.runs) +
           " runs: " + std::to_string(x.ok) + " ok, " + std::to_string(x.failed) + " failed; " + x.createdAt +
           " on " + x.host + "\n\n";
    for (const std::string& model : data.models(x.id)) {
      out += "### " + model + "\n\n" + markdownTable(keyFigureTable(data, x.id, model)) + "\n";
      const ReportTable breakdown = breakdownTable(data, x.id, model),
                        memory = memoryTable(data, x.id, model);
      if (!breakdown.rows.empty())
        out += "Where a training step's time goes, ms per step (mean of repeats):\n\n" +
               markdownTable(breakdown) + "\n";
      if (!memory.rows.empty())
        out += "Memory one rank holds, by category:\n\n" + markdownTable(memory) + "\n";
    }
    if (const ReportTable recovery = recoveryTable(data, x.id); !recovery.rows.empty()) {
      out += std::string("### Recovery from failed ranks\n\n") + kRecoveryNote + "\n\n" +
             markdownTable(recovery) + "\n";
    }
    const ReportTable sweeps = bandwidthSummaryTable(data, x.id);
    if (!sweeps.rows.empty()) {
      out += "### Collective sweeps\n\n" + markdownTable(sweeps) + "\nEvery size:\n\n" +
             markdownTable(bandwidthTable(data, x.id)) + "\n";
    }
  }
  return out;
}

}  // namespace dtb::core
