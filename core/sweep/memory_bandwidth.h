// The reference a CPU collective is read against: how fast one rank copies
// memory while every rank copies (a collective on one machine moves each byte
// through memory at least once, so memcpy bandwidth is its ceiling).
#pragma once

#include <cstdint>

namespace dtb::core {

// Median over `repetitions` timed memcpy calls of `bytes` (after one untimed
// call that faults the pages in), in GB/s (1e9 bytes copied per second).
double memcpyGbps(int64_t bytes, int repetitions = 5);

}  // namespace dtb::core
