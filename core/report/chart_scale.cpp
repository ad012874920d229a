#include "report/chart_scale.h"

#include <algorithm>
#include <cmath>

namespace dtb::core {

double ChartScale::fraction(double v) const {
  if (logBase > 0) return (std::log(v) - std::log(low)) / (std::log(high) - std::log(low));
  return (v - low) / (high - low);
}

std::vector<double> ChartScale::minorTicks() const {
  std::vector<double> out;
  if (logBase <= 0) return out;
  const std::vector<double> major = ticks();
  auto isMajor = [&](double t) {
    return std::any_of(major.begin(), major.end(), [&](double m) { return std::abs(m - t) <= 1e-9 * m; });
  };
  if (logBase == 10) {
    for (double decade = std::pow(10, std::floor(std::log10(low))); decade <= high; decade *= 10) {
      for (int m = 2; m <= 9; ++m) {
        const double t = m * decade;
        if (t > low * (1 + 1e-9) && t < high * (1 - 1e-9) && !isMajor(t)) out.push_back(t);
      }
    }
    return out;
  }
  for (double t = std::pow(logBase, std::floor(std::log(low) / std::log(logBase) + 1e-9));
       t <= high * (1 + 1e-9); t *= logBase) {
    if (t >= low * (1 - 1e-9) && !isMajor(t)) out.push_back(t);
  }
  return out;
}

bool ChartScale::labelsMinor(double t) const {
  if (logBase != 10 || high / low > 100) return false;
  const double m = t / std::pow(10, std::floor(std::log10(t) + 1e-9));
  return std::abs(m - 2) < 1e-6 || std::abs(m - 5) < 1e-6;
}

std::vector<double> ChartScale::ticks() const {
  std::vector<double> out;
  if (logBase > 0) {
    const double base = logBase;
    // At most ~8 ticks: every power of the base, or every n-th one.
    const double decades = std::log(high / low) / std::log(base);
    const int stride = std::max(1, static_cast<int>(std::ceil(decades / 8)));
    for (double t = std::pow(base, std::floor(std::log(low) / std::log(base) + 1e-9)); t <= high * (1 + 1e-9);
         t *= std::pow(base, stride)) {
      if (t >= low * (1 - 1e-9)) out.push_back(t);
    }
    return out;
  }
  const double span = high - low;
  const double raw = span / 5;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  double nice = magnitude;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * magnitude >= raw) {
      nice = m * magnitude;
      break;
    }
  }
  if (integers) nice = std::max(1.0, std::ceil(nice));
  for (double t = std::ceil(low / nice) * nice; t <= high + nice * 1e-9; t += nice) out.push_back(t);
  return out;
}

ChartScale scaleFor(const ChartAxis& axis, double low, double high) {
  ChartScale s;
  s.logBase = axis.logBase;
  s.integers = axis.integers;
  if (!(low <= high)) low = high = axis.logBase > 0 ? 1 : 0;  // no data
  if (axis.logBase > 0) {
    low = std::max(low, 1e-12);
    const double base = axis.logBase;
    s.low = std::pow(base, std::floor(std::log(low) / std::log(base) + 1e-9));
    s.high = std::pow(base, std::ceil(std::log(std::max(high, low)) / std::log(base) - 1e-9));
    if (s.high <= s.low) s.high = s.low * base;
    return s;
  }
  if (axis.fromZero) low = std::min(low, 0.0);
  if (high <= low) high = low + 1;
  const double pad = (high - low) * 0.05;
  s.low = axis.fromZero && low >= 0 ? low : low - pad;
  s.high = high + pad;
  return s;
}

}  // namespace dtb::core
