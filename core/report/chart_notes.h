// What a chart must tell its reader beyond its marks: points so far from the
// rest that drawing them to scale would flatten every other line (a slow
// reference run makes an efficiency of 300 %), and series that coincide and
// so draw as one line (nine strategies with the same accuracy per epoch).
#pragma once

#include <string>
#include <vector>

#include "report/svg_chart.h"

namespace dtb::core {

struct OffScalePoint {
  size_t series = 0, point = 0;  // indexes into LineChart::series[].points
  bool above = true;             // above the axis' top, or below its bottom
};

// Points of a linear y axis beyond Tukey's far fences (3 x IQR past the
// quartiles, with at least 4 points; a spread of 0 counts as 10 % of the
// median) — never a dashed reference line's. Log axes and small charts: none.
std::vector<OffScalePoint> offScalePoints(const LineChart& chart);

// Groups (two or more) of legend series whose drawable points are equal
// (6 significant digits), by index, in order of appearance.
std::vector<std::vector<size_t>> coincidingSeries(const LineChart& chart);

// The notes printed below the chart for both.
std::vector<std::string> chartNotes(const LineChart& chart, const std::vector<OffScalePoint>& offScale,
                                    const std::vector<std::vector<size_t>>& coinciding);

}  // namespace dtb::core
