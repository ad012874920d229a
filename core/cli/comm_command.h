#pragma once

#include <CLI/CLI.hpp>

#include "cli/global_options.h"

namespace dtb::cli {

// `dtbench comm`: a collective sweep in the spirit of nccl-tests.
void addCommCommand(CLI::App& app, GlobalOptions& global);

}  // namespace dtb::cli
