// `dtbench comm`'s printed table, laid out as nccl-tests lays out its own:
// size, count, type, then time, algbw, busbw and #wrong, with p50/p95 and
// busbw as a share of the memcpy reference.
#pragma once

#include <cstdio>
#include <string>

#include "store/records.h"

namespace dtb::core {

void printSweepHeader(std::FILE* out, const std::string& backend, int world, const std::string& launcher,
                      const std::string& reduceOp, int64_t warmup, int64_t iterations);
void printReference(std::FILE* out, const BandwidthReferenceRecord& reference);
// `memcpyGbps` <= 0: no reference yet.
void printSweepRow(std::FILE* out, const CollectiveRecord& row, int world, double memcpyGbps);

}  // namespace dtb::core
