#include "sweep/sweep_table.h"

#include "dtbench/plugin.hpp"
#include "sweep/sweep_spec.h"

namespace dtb::core {

void printSweepHeader(std::FILE* out, const std::string& backend, int world, const std::string& launcher,
                      const std::string& reduceOp, int64_t warmup, int64_t iterations) {
  std::fprintf(out, "#\n# %s, %d ranks (%s launcher), reduce op %s, %lld warm-up and %lld timed iterations\n",
               backend.c_str(), world, launcher.c_str(), reduceOp.c_str(), static_cast<long long>(warmup),
               static_cast<long long>(iterations));
  std::fprintf(out, "#%11s %12s %5s %-15s %10s %10s %10s %8s %8s %7s %7s\n", "size", "count", "type",
               "collective", "time", "p50", "p95", "algbw", "busbw", "memcpy", "#wrong");
  std::fprintf(out, "#%11s %12s %5s %-15s %10s %10s %10s %8s %8s %7s %7s\n", "(B)", "(elements)", "", "",
               "(us)", "(us)", "(us)", "(GB/s)", "(GB/s)", "(%)", "");
  std::fflush(out);
}

void printReference(std::FILE* out, const BandwidthReferenceRecord& reference) {
  std::fprintf(out, "# %s reference: %.2f GB/s per rank (%s, every rank copying at once)\n",
               reference.name.c_str(), reference.gbps, formatSize(reference.bytes).c_str());
  std::fflush(out);
}

void printSweepRow(std::FILE* out, const CollectiveRecord& row, int world, double memcpyGbps) {
  const double elementBytes = static_cast<double>(dtypeSize(sweepDtype(row.dtype)));
  const double algbw = static_cast<double>(row.bytes) / row.timeS / 1e9;
  const double busbw = algbw * busFactor(row.op, world);
  char share[16] = "-";
  if (memcpyGbps > 0) std::snprintf(share, sizeof(share), "%.1f", 100 * busbw / memcpyGbps);
  std::fprintf(out, " %11lld %12lld %5s %-15s %10.1f %10.1f %10.1f %8.3f %8.3f %7s %7lld\n",
               static_cast<long long>(row.bytes),
               static_cast<long long>(static_cast<double>(row.bytes) / elementBytes), row.dtype.c_str(),
               row.op.c_str(), 1e6 * row.timeS, 1e6 * row.p50S.value_or(0), 1e6 * row.p95S.value_or(0), algbw,
               busbw, share, static_cast<long long>(row.wrong));
  std::fflush(out);
}

}  // namespace dtb::core
