#pragma once

#include <CLI/CLI.hpp>

#include "cli/global_options.h"

namespace dtb::cli {

// `dtbench upgrade DB`: brings a store written by an older dtbench to this
// version's schema (readers — query, runs, report — never change a store).
void addUpgradeCommand(CLI::App& app, GlobalOptions& global);

}  // namespace dtb::cli
