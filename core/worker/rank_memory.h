// What one rank's training state takes at the end of a run: the strategy's
// own count where it gives one (ZeRO shards parameters, gradients and
// optimizer state), else every element held in full; and the process's peak
// resident set, which shows what no count does.
#pragma once

#include "store/records.h"
#include "worker/rank_plugins.h"

namespace dtb::core {

// Throws PluginCallError when the strategy's memory_report fails.
MemoryRecord rankMemory(RankPlugins& plugins, int rank);

}  // namespace dtb::core
