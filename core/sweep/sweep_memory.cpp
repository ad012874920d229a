#include "sweep/sweep_memory.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "store/environment.h"

namespace dtb::core {
namespace {

std::string gigabytes(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f GB", static_cast<double>(bytes) / 1e9);
  return text;
}

}  // namespace

int64_t sweepReferenceBytes(const SweepSpec& sweep) {
  return std::clamp<int64_t>(sweep.maxBytes, int64_t{1} << 20, int64_t{256} << 20);
}

uint64_t sweepBytesPerRank(const SweepSpec& sweep, int hostCopies) {
  const auto largest = static_cast<uint64_t>(sweep.maxBytes);
  const auto reference = static_cast<uint64_t>(sweepReferenceBytes(sweep));
  return std::max(static_cast<uint64_t>(hostCopies) * largest, 2 * reference);
}

std::optional<uint64_t> availableMemoryBytes() {
  const std::string kilobytes = procField("/proc/meminfo", "MemAvailable");  // "21300000 kB"
  if (kilobytes.empty()) return std::nullopt;
  return std::stoull(kilobytes) * 1024;
}

void checkSweepFitsMemory(const SweepSpec& sweep, int ranksHere, int hostCopies) {
  const std::optional<uint64_t> available = availableMemoryBytes();
  if (!available || ranksHere < 1) return;
  // At most 2e12 (SweepSpec bounds the size) x 65,536 ranks: the product cannot wrap.
  const uint64_t perRank = sweepBytesPerRank(sweep, hostCopies);
  const uint64_t needed = perRank * static_cast<uint64_t>(ranksHere);
  if (needed <= *available) return;
  throw std::invalid_argument(
      "-e " + std::to_string(sweep.maxBytes) + " bytes: each rank holds up to " + gigabytes(perRank) +
      (hostCopies == 1 ? " (the largest call's input), " : " (the largest call's input and output), ") +
      std::to_string(ranksHere) + " rank" + (ranksHere == 1 ? "" : "s") + " on this host " +
      gigabytes(needed) + ", and MemAvailable is " + gigabytes(*available) +
      ": lower -e (--max-bytes) or --ranks");
}

}  // namespace dtb::core
