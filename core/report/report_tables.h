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
  std::string align;  // per column: 'l' or 'r' (Markdown's alignment row)
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> rowClass;   // per row: "" or a CSS class ("faster", "slower")
  std::vector<size_t> classedColumns;  // the cells that carry their row's class in HTML
};

// Per configuration and world size: repeats, samples/s median and spread,
// ms/step, speed-up, efficiency, test accuracy mean and spread, failed runs.
ReportTable keyFigureTable(const ReportData& data, int64_t experiment, const std::string& model);
// Per model, dataset and world size: the configuration to use, its margin
// over the runner-up and the slowest, whether the margin beats the repeats'
// noise, and the measured reason.
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

// B against A, with the verdict as the row's class.
ReportTable comparisonTable(const std::vector<ComparisonRow>& rows);

}  // namespace dtb::core
