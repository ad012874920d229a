// Horovod's tensor fusion decisions, kept free of threads and communication
// so they can be tested on their own.
#pragma once

#include <cstdint>
#include <vector>

namespace dtb::strategy::fusion {

// Horovod rounds the fusion threshold up to a multiple of
// local_size x 8 x 64 bytes (one 64-byte-aligned slice per rank and
// element-size class).
uint64_t roundThreshold(uint64_t thresholdBytes, int localSize);

// Greedy fusion in response order: a tensor joins the current group while
// the group's total stays within the threshold; otherwise it starts a new
// group (a tensor larger than the threshold goes alone). Threshold 0: no
// fusion, one tensor per group. Returns groups of positions into `bytes`.
std::vector<std::vector<uint32_t>> fuse(const std::vector<uint64_t>& bytes, uint64_t thresholdBytes);

}  // namespace dtb::strategy::fusion
