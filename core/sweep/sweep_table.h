// `dtbench comm`'s printed table, laid out as nccl-tests lays out its own:
// size, count, type, then time, algbw, busbw and #wrong, with p50/p95 and
// busbw as a share of the memcpy reference; each backend's table ends with
// nccl-tests' "Avg bus bandwidth" line and a latency-bandwidth fit.
#pragma once

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "network/network_profile.h"
#include "store/records.h"

namespace dtb::core {

void printSweepHeader(std::FILE* out, const std::string& backend, int world, const std::string& launcher,
                      const std::string& reduceOp, int64_t warmup, int64_t iterations);
void printReference(std::FILE* out, const BandwidthReferenceRecord& reference);
// The emulated network the sweep ran on: what every link applied, and the
// published figures it stands for.
void printNetwork(std::FILE* out, const NetworkProfile& network);
// `memcpyGbps` <= 0: no reference yet.
void printSweepRow(std::FILE* out, const CollectiveRecord& row, int world, double memcpyGbps);

// busbw of one row in GB/s: algbw times the collective's bus factor.
double busBandwidthGbps(const CollectiveRecord& row, int world);

// What ends each backend's table, one line per collective: nccl-tests'
// "# Avg bus bandwidth : X", the mean busbw of its rows (scripts read the
// number after the colon; one sweep here covers several collectives, whose
// means say little together), then the latency-bandwidth fit of its sizes
// (latency_bandwidth_fit.h).
class SweepFooter {
 public:
  void add(const CollectiveRecord& row, int world);
  void printAverages(std::FILE* out, const std::string& backend) const;
  void printFits(std::FILE* out, const std::string& backend) const;

 private:
  struct Collective {
    std::string op;
    double sumGbps = 0;
    std::vector<std::pair<double, double>> busBytesAndSeconds;  // a row each
  };
  std::vector<Collective> collectives_;  // in the order they came
};

}  // namespace dtb::core
