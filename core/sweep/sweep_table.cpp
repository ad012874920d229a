#include "sweep/sweep_table.h"

#include <optional>

#include "dtbench/plugin.hpp"
#include "sweep/latency_bandwidth_fit.h"
#include "sweep/sweep_spec.h"

namespace dtb::core {
namespace {

// "1 rank", "2 ranks".
std::string count(long long n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

}  // namespace

void printSweepHeader(std::FILE* out, const std::string& backend, int world, const std::string& launcher,
                      const std::string& reduceOp, int64_t warmup, int64_t iterations) {
  std::fprintf(out, "#\n# %s, %s (%s launcher), reduce op %s, %lld warm-up and %s\n", backend.c_str(),
               count(world, "rank").c_str(), launcher.c_str(), reduceOp.c_str(),
               static_cast<long long>(warmup), count(iterations, "timed iteration").c_str());
  std::fprintf(out, "#%11s %12s %8s %-15s %10s %10s %10s %8s %8s %7s %7s\n", "size", "count", "type",
               "collective", "time", "p50", "p95", "algbw", "busbw", "memcpy", "#wrong");
  std::fprintf(out, "#%11s %12s %8s %-15s %10s %10s %10s %8s %8s %7s %7s\n", "(B)", "(elements)", "", "",
               "(us)", "(us)", "(us)", "(GB/s)", "(GB/s)", "(%)", "");
  std::fflush(out);
}

void printNetwork(std::FILE* out, const NetworkProfile& network) {
  if (network.gigabytesPerS <= 0) {
    std::fprintf(out, "# Network %s: %s\n", network.name.c_str(), network.what.c_str());
  } else {
    std::fprintf(out,
                 "# Network %s (%s), emulated %gx slower: %.0f us one way, %.4g GB/s per link "
                 "(published: %g us, %g GB/s)\n",
                 network.name.c_str(), network.what.c_str(), kNetworkTimeScale, network.emulatedLatencyUs(),
                 network.emulatedGigabytesPerS(), network.latencyUs, network.gigabytesPerS);
  }
  std::fflush(out);
}

void printReference(std::FILE* out, const BandwidthReferenceRecord& reference) {
  std::fprintf(out, "# %s reference: %.2f GB/s per rank (%s, every rank copying at once)\n",
               reference.name.c_str(), reference.gbps, formatSize(reference.bytes).c_str());
  std::fflush(out);
}

double busBandwidthGbps(const CollectiveRecord& row, int world) {
  const double algbw = static_cast<double>(row.bytes) / row.timeS / 1e9;
  return algbw * busFactor(row.op, world);
}

void printSweepRow(std::FILE* out, const CollectiveRecord& row, int world, double memcpyGbps) {
  // The record keeps the ABI's short name (f32); the table shows the word -d takes (float).
  const dtb_dtype_t dtype = sweepDtype(row.dtype);
  const double elementBytes = static_cast<double>(dtypeSize(dtype));
  const double algbw = static_cast<double>(row.bytes) / row.timeS / 1e9;
  const double busbw = busBandwidthGbps(row, world);
  char share[16] = "-";
  if (memcpyGbps > 0) std::snprintf(share, sizeof(share), "%.1f", 100 * busbw / memcpyGbps);
  std::fprintf(out, " %11lld %12lld %8s %-15s %10.1f %10.1f %10.1f %8.3f %8.3f %7s %7lld\n",
               static_cast<long long>(row.bytes),
               static_cast<long long>(static_cast<double>(row.bytes) / elementBytes),
               sweepDtypeWord(dtype).c_str(), row.op.c_str(), 1e6 * row.timeS, 1e6 * row.p50S.value_or(0),
               1e6 * row.p95S.value_or(0), algbw, busbw, share, static_cast<long long>(row.wrong));
  std::fflush(out);
}

void SweepFooter::add(const CollectiveRecord& row, int world) {
  auto it = collectives_.begin();
  while (it != collectives_.end() && it->op != row.op) ++it;
  if (it == collectives_.end()) {
    it = collectives_.insert(it, Collective{});
    it->op = row.op;
  }
  it->sumGbps += busBandwidthGbps(row, world);
  it->busBytesAndSeconds.emplace_back(static_cast<double>(row.bytes) * busFactor(row.op, world), row.timeS);
}

void SweepFooter::printAverages(std::FILE* out, const std::string& backend) const {
  for (const Collective& c : collectives_) {
    const int rows = static_cast<int>(c.busBytesAndSeconds.size());
    std::fprintf(out, "# Avg bus bandwidth    : %.3f GB/s (%s %s, the mean of %s)\n", c.sumGbps / rows,
                 backend.c_str(), c.op.c_str(), count(rows, "row").c_str());
  }
  std::fflush(out);
}

void SweepFooter::printFits(std::FILE* out, const std::string& backend) const {
  for (const Collective& c : collectives_) {
    const std::optional<LatencyBandwidth> fit = fitLatencyBandwidth(c.busBytesAndSeconds);
    if (!fit) continue;
    std::fprintf(out, "# Fit t = a + bus bytes / B: a = %.1f us, B = %.3f GB/s (%s %s, %d sizes)\n",
                 1e6 * fit->latencyS, fit->busGbps, backend.c_str(), c.op.c_str(), fit->sizes);
  }
  std::fflush(out);
}

}  // namespace dtb::core
