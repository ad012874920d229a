// The latency-bandwidth (alpha-beta) model of a sweep's collective, fitted
// to its rows: t(S) = a + bus bytes / B, where bus bytes = S x the
// collective's bus factor (nccl-tests'), a is the fixed cost of a call and B
// the bandwidth the largest sizes approach. Weighted least squares with
// weights 1/t^2 (relative errors), so the small sizes decide a and the large
// ones B. What a network's profile predicts is read against these two
// numbers; the collective_fit view computes the same from the store.
#pragma once

#include <optional>
#include <utility>
#include <vector>

namespace dtb::core {

struct LatencyBandwidth {
  double latencyS = 0;  // a
  double busGbps = 0;   // B, 1e9 bytes per second
  int sizes = 0;
};

// The fit of (bus bytes, seconds) points; nullopt with fewer than 3 points,
// or when they do not rise with size (no bandwidth to speak of).
std::optional<LatencyBandwidth> fitLatencyBandwidth(const std::vector<std::pair<double, double>>& points);

}  // namespace dtb::core
