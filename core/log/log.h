// The host's logger: one line per message on stderr, filtered by level.
#pragma once

#include <string_view>

#include "dtbench/dtbench.h"

namespace dtb::core {

// Messages below this level are dropped. Default: DTB_LOG_WARN, or the
// DTBENCH_LOG environment variable (debug, info, warn, error).
void setLogLevel(dtb_log_level_t level);
dtb_log_level_t logLevel();

// Parses "debug" | "info" | "warn" | "error"; false when unknown.
bool parseLogLevel(std::string_view text, dtb_log_level_t* out);

// `source` names who speaks: "loader", "strategy/zero rank 1", ...
void log(dtb_log_level_t level, std::string_view source, std::string_view message);

}  // namespace dtb::core
