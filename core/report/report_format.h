// The report as one self-contained HTML page (inline CSS and SVG, no network
// needed to view it) or as Markdown for a terminal or a README.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/report_data.h"

namespace dtb::core {

struct ReportInput {
  std::string database;  // shown in the header
  const ReportData* data = nullptr;
  std::optional<std::pair<int64_t, int64_t>> compared;  // --compare A B
  const std::vector<ComparisonRow>* comparison = nullptr;
};

std::string renderHtml(const ReportInput& input);
std::string renderMarkdown(const ReportInput& input);

// "1,234", "12.3", "—" for NaN; spread as "[lo – hi]".
std::string formatNumber(double value, int decimals);
std::string formatSpread(double low, double high, int decimals);
// `digits` significant digits, at most 6 decimals: 0.004 -> "0.00400", 102.4 -> "102".
std::string formatSignificant(double value, int digits);

}  // namespace dtb::core
