// The report's charts for one model of one experiment (or one experiment's
// collective sweeps), built from ReportData: which series, which axes, which
// scales — the choices the field makes (log-log scaling curves with the
// ideal line, efficiency against 100 %, stacked step time, busbw against
// message size on log2, bytes per step side by side). A configuration has
// its colour (ReportConfig::color) on every chart.
#pragma once

#include <string>
#include <vector>

#include "report/report_data.h"
#include "report/svg_chart.h"

namespace dtb::core {

// Each returns nothing when the experiment has no such data.
std::vector<LineChart> scalingCharts(const ReportData& data, int64_t experiment, const std::string& model);
// Each strategy's efficiency as `dtbench project --store` projected it from
// a run of the experiment, one chart per system (and run and target), the
// experiment's measured efficiency on the same axes.
std::vector<LineChart> projectionCharts(const ReportData& data, int64_t experiment, const std::string& model);
std::vector<StackedBarChart> breakdownCharts(const ReportData& data, int64_t experiment,
                                             const std::string& model);
std::vector<LineChart> accuracyCharts(const ReportData& data, int64_t experiment, const std::string& model);
// Bus bytes per step (MB) of each configuration, grouped by world size.
std::vector<GroupedBarChart> busBytesCharts(const ReportData& data, int64_t experiment,
                                            const std::string& model);
std::vector<StackedBarChart> memoryCharts(const ReportData& data, int64_t experiment,
                                          const std::string& model);
std::vector<LineChart> bandwidthCharts(const ReportData& data, int64_t experiment);
// Throughput over time of each run of `experiment` that met a fault or
// recovered, with its faults, failures, recoveries and joins marked as
// vertical lines.
std::vector<LineChart> timelineCharts(const ReportData& data, int64_t experiment);

}  // namespace dtb::core
