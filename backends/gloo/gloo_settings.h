// The Gloo backend's parameters, declared once: the descriptor lists them
// (plugin.cpp) and create reads them.
#pragma once

#include "dtbench/settings.hpp"

namespace dtb::backend::gloo {

inline constexpr StringSetting kAlgorithm{
    "algorithm",
    "auto",
    "All-reduce algorithm: auto lets Gloo choose (ring today; halving_doubling for a sync all-reduce); "
    "ring_chunked and halving_doubling use Gloo's legacy algorithm classes, set up anew for every call",
    {},
    "auto|ring|bcube|ring_chunked|halving_doubling"};
inline constexpr StringSetting kMode{
    "mode",
    "sync",
    "Who reads a collective's sockets: async (Gloo's device thread, which then wakes the caller, as "
    "PyTorch's ProcessGroupGloo), sync (the thread running the collective, blocking) or busy_poll (that "
    "thread, spinning: no wake-up, its core busy while it waits); sync and busy_poll apply to all-reduces "
    "up to sync_max_bytes that Gloo's legacy classes take (floats of 16 to 64 bits and 32/64-bit integers "
    "with sum, avg, min or max, integers with band; algorithm auto, ring_chunked or halving_doubling), "
    "everything else runs async",
    {},
    "async|sync|busy_poll"};
// Linux's default net.core.wmem_max: every host's sockets take a send this large.
inline constexpr IntSetting kSyncMaxBytes{
    "sync_max_bytes", "212992",
    "Largest all-reduce in bytes run sync: each of its sends must fit a socket's send buffer, or two ranks "
    "sending to each other block each other until the timeout; at most every host's net.core.wmem_max",
    atLeast(0)};

}  // namespace dtb::backend::gloo
