// `dtbench plugins [--kind K] [NAME]`: what plugins are there, and what each
// one's parameters mean.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/global_options.h"

namespace dtb::cli {

void addPluginsCommand(CLI::App& app, GlobalOptions& global);

}  // namespace dtb::cli
