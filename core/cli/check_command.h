// `dtbench check`: a self-check of the installation — build, libraries,
// GPU, and every plugin on the path loaded and instantiated.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/global_options.h"

namespace dtb::cli {

void addCheckCommand(CLI::App& app, GlobalOptions& global);

}  // namespace dtb::cli
