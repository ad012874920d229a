// The ps strategy's parameters, declared once: the descriptor lists them
// (plugin.cpp) and the strategy reads them. Names after TensorFlow's
// ParameterServerStrategy and BytePS where they have one.
#pragma once

#include "dtbench/settings.hpp"

namespace dtb::strategy::ps {

inline constexpr IntSetting kServers{
    "servers", "0",
    "Ranks serving a shard of the parameters each: 0 makes every rank a server for its shard (BytePS's "
    "colocated servers); K serves from ranks 0..K-1 (every rank, in a world of K or fewer)",
    atLeast(0)};
inline constexpr StringSetting kMode{"mode",
                                     "sync",
                                     "sync: each server applies the average of every worker's gradient once "
                                     "per step; async: it applies each worker's gradient as it arrives",
                                     {},
                                     "sync|async"};
inline constexpr IntSetting kStaleness{
    "staleness", "0",
    "async: steps a worker may run ahead of the slowest worker (stale synchronous parallel); 0 makes async "
    "wait as sync does",
    atLeast(0)};

}  // namespace dtb::strategy::ps
