// What a collective sweep holds in memory, checked before any worker starts:
// `comm -b 8G -e 8G` on two local ranks asked for 32 GB and ended in "rank 0
// was killed by signal 9", naming neither the size nor the limit.
#pragma once

#include <cstdint>
#include <optional>

#include "sweep/sweep_spec.h"

namespace dtb::core {

// The bytes of the memcpy reference each rank copies (source and target
// each this large): the largest size, within 1 MiB and 256 MiB.
int64_t sweepReferenceBytes(const SweepSpec& sweep);

// The most host memory one rank's buffers take at once: `hostCopies` (2:
// the input and the output of the largest call, each up to the size; 1 for
// a GPU backend, whose host holds only the input) times the largest size,
// or the memcpy reference's source and target, whichever is larger.
uint64_t sweepBytesPerRank(const SweepSpec& sweep, int hostCopies = 2);

// This machine's MemAvailable (/proc/meminfo) in bytes; nullopt where it
// cannot be read.
std::optional<uint64_t> availableMemoryBytes();

// Throws std::invalid_argument, naming -e, the ranks and MemAvailable, when
// `ranksHere` ranks of `sweep` would not fit this machine's memory
// (0: none of them run here, nothing checked).
void checkSweepFitsMemory(const SweepSpec& sweep, int ranksHere, int hostCopies = 2);

}  // namespace dtb::core
