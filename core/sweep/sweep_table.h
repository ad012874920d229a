// `dtbench comm`'s printed table, laid out as nccl-tests lays out its own:
// size, count, type, then time, algbw, busbw and #wrong, with p50/p95 and
// busbw as a share of the memcpy reference; each backend's table ends with
// nccl-tests' "Avg bus bandwidth" line.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "store/records.h"

namespace dtb::core {

void printSweepHeader(std::FILE* out, const std::string& backend, int world, const std::string& launcher,
                      const std::string& reduceOp, int64_t warmup, int64_t iterations);
void printReference(std::FILE* out, const BandwidthReferenceRecord& reference);
// `memcpyGbps` <= 0: no reference yet.
void printSweepRow(std::FILE* out, const CollectiveRecord& row, int world, double memcpyGbps);

// busbw of one row in GB/s: algbw times the collective's bus factor.
double busBandwidthGbps(const CollectiveRecord& row, int world);

// nccl-tests ends its table with "# Avg bus bandwidth : X", the mean busbw
// of its rows (scripts read the number after the colon). One sweep here
// covers several collectives, whose means say little together, so there
// is one such line per collective.
class BusBandwidthAverages {
 public:
  void add(const CollectiveRecord& row, int world);
  void print(std::FILE* out, const std::string& backend) const;

 private:
  struct Mean {
    std::string op;
    double sumGbps = 0;
    int rows = 0;
  };
  std::vector<Mean> means_;  // in the order the collectives came
};

}  // namespace dtb::core
