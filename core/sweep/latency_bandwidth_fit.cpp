#include "sweep/latency_bandwidth_fit.h"

namespace dtb::core {

std::optional<LatencyBandwidth> fitLatencyBandwidth(const std::vector<std::pair<double, double>>& points) {
  double w = 0, x = 0, y = 0, xx = 0, xy = 0;
  int used = 0;
  for (const auto& [bytes, seconds] : points) {
    if (!(seconds > 0)) continue;
    const double weight = 1 / (seconds * seconds);
    w += weight;
    x += weight * bytes;
    y += weight * seconds;
    xx += weight * bytes * bytes;
    xy += weight * bytes * seconds;
    ++used;
  }
  const double spread = w * xx - x * x;
  if (used < 3 || !(spread > 0)) return std::nullopt;
  const double secondsPerByte = (w * xy - x * y) / spread;
  if (!(secondsPerByte > 0)) return std::nullopt;
  return LatencyBandwidth{(y - secondsPerByte * x) / w, 1e-9 / secondsPerByte, used};
}

}  // namespace dtb::core
