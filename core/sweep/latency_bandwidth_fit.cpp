#include "sweep/latency_bandwidth_fit.h"

#include "sweep/sweep_spec.h"

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

void LatencyBandwidthFits::add(const CollectiveRecord& row, int world) {
  auto it = ops_.begin();
  while (it != ops_.end() && it->op != row.op) ++it;
  if (it == ops_.end()) {
    it = ops_.insert(it, Points{});
    it->op = row.op;
  }
  it->busBytesAndSeconds.emplace_back(static_cast<double>(row.bytes) * busFactor(row.op, world), row.timeS);
}

void LatencyBandwidthFits::print(std::FILE* out, const std::string& backend) const {
  for (const Points& p : ops_) {
    const std::optional<LatencyBandwidth> fit = fitLatencyBandwidth(p.busBytesAndSeconds);
    if (!fit) continue;
    std::fprintf(out, "# Fit t = a + bus bytes / B: a = %.1f us, B = %.3f GB/s (%s %s, %d sizes)\n",
                 1e6 * fit->latencyS, fit->busGbps, backend.c_str(), p.op.c_str(), fit->sizes);
  }
  std::fflush(out);
}

}  // namespace dtb::core
