// One hop of a collective's schedule as the alpha-beta model sees it: a
// message of S bytes takes latency + S / bandwidth (Hockney's model, the one
// nccl-tests' bus bandwidth and MPI's collective papers are read against).
#pragma once

namespace dtb::core {

struct Link {
  double latencyS = 0;   // alpha: the cost of a message of no bytes
  double bytesPerS = 0;  // 1 / beta: bytes per second, one direction

  double seconds(double bytes) const { return latencyS + bytes / bytesPerS; }
};

// The link a ring all-reduce's alpha-beta fit implies: `dtbench comm`'s
// collective_fit gives t = a + bus bytes / B for p ranks, and a ring makes
// 2(p - 1) hops of bus bytes / (2(p - 1)) each, so alpha = a / (2(p - 1))
// and the link carries B (bus bandwidth is the link's, by its definition).
inline Link linkFromAllreduceFit(double latencyS, double busBytesPerS, int ranks) {
  return {ranks > 1 ? latencyS / (2.0 * (ranks - 1)) : latencyS, busBytesPerS};
}

// The same for a reduce-scatter's or an all-gather's fit: half a ring, p - 1
// hops of bus bytes / (p - 1) each (bus bytes = S (p - 1) / p).
inline Link linkFromHalfRingFit(double latencyS, double busBytesPerS, int ranks) {
  return {ranks > 1 ? latencyS / (ranks - 1.0) : latencyS, busBytesPerS};
}

}  // namespace dtb::core
