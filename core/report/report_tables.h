// The report's tables as plain cells, built once and drawn by either format
// (HTML or Markdown), so a column's figure and formatting are decided in one
// place.
#pragma once

#include <string>
#include <vector>

#include "report/report_data.h"

namespace dtb::core {

struct ReportTable {
  std::vector<std::string> headers;
  std::string align;  // per column: 'l' (text) or 'r' (numbers), in both formats
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> rowClass;   // per row: "" or a CSS class ("faster", "slower")
  std::vector<size_t> classedColumns;  // the cells that carry their row's class in HTML
};

// Per configuration and world size: repeats, samples/s median and spread,
// ms/step, speed-up, efficiency, test accuracy mean and spread, failed runs.
ReportTable keyFigureTable(const ReportData& data, int64_t experiment, const std::string& model);
// The verdict of one model, dataset and world size in words, heading the
// report: the decision, the measured reason, and the faster configurations
// that missed the accuracy.
struct VerdictHeadline {
  std::string where;     // "lenet / idx, 2 ranks"
  std::string decision;  // "use bucketed", "tie within noise: bucketed, allreduce", …
  std::string why;       // "" where it would only say the decision again
  std::string missed;    // "missed the accuracy: topk: +3 % samples/s, -6.1 pt accuracy", or ""
};
std::vector<VerdictHeadline> verdictHeadlines(const ReportData& data, int64_t experiment);
// The figures behind the headlines: per model, dataset and world size, the
// best configuration, its margin over the runner-up and the slowest,
// whether the margin beats the repeats' noise, its test accuracy and the
// accuracy it had to reach.
ReportTable verdictTable(const ReportData& data, int64_t experiment);
// What the verdict table means, in one paragraph (both formats print it).
extern const char* const kVerdictNote;
// The numbers behind the step-time and memory charts: ms per step by phase
// (mean of repeats), and MB one rank holds by category.
ReportTable breakdownTable(const ReportData& data, int64_t experiment, const std::string& model);
ReportTable memoryTable(const ReportData& data, int64_t experiment, const std::string& model);
// Every size of every sweep of the experiment.
ReportTable bandwidthTable(const ReportData& data, int64_t experiment);
// Per collective, backend, ranks and dtype: the smallest size's time, the
// largest's busbw, and the peak busbw with its size.
ReportTable bandwidthSummaryTable(const ReportData& data, int64_t experiment);
// Each restart of the experiment's runs: what failed, time to detect and to
// recover, the steps run twice (empty without recovery = "restart").
ReportTable recoveryTable(const ReportData& data, int64_t experiment);
// What the recovery table's columns mean, above it.
extern const char* const kRecoveryNote;
extern const char* const kTimelineNote;  // what the throughput-over-time charts show

// B against A, with the verdict as the row's class ("faster", "slower",
// "inconclusive").
ReportTable comparisonTable(const std::vector<ComparisonRow>& rows);
// The rule the comparison's verdicts follow, above its table.
extern const char* const kComparisonNote;

}  // namespace dtb::core
