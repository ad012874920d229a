// How a chart maps data to pixels along one axis: the range drawn (padded,
// or whole powers of the base on a log axis) and its ticks, major and minor.
#pragma once

#include <vector>

#include "report/svg_chart.h"

namespace dtb::core {

struct ChartScale {
  double low = 0, high = 1;
  int logBase = 0;
  bool integers = false;

  // Where `v` falls between low (0) and high (1).
  double fraction(double v) const;
  // The labelled ticks: every power of the base (or every n-th, at most ~8)
  // on a log axis; 1, 2, 2.5 or 5 times a power of ten apart on a linear one.
  std::vector<double> ticks() const;
  // Unlabelled ticks between the labelled ones on a log axis: 2..9 x 10^k,
  // or the powers of 2 a stride skipped.
  std::vector<double> minorTicks() const;
  // A log10 axis spanning less than two decades labels its 2s and 5s too.
  bool labelsMinor(double t) const;
};

// The scale of `axis` for data from `low` to `high`.
ChartScale scaleFor(const ChartAxis& axis, double low, double high);

}  // namespace dtb::core
