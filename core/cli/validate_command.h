// `dtbench validate FILE` and `dtbench run FILE --dry-run`: check a matrix
// and show the cells it expands to, without running anything.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/global_options.h"

namespace dtb::cli {

void addValidateCommand(CLI::App& app, GlobalOptions& global);
void addRunCommand(CLI::App& app, GlobalOptions& global);

}  // namespace dtb::cli
