// `dtbench worker`: one rank of one run. Started by `dtbench run` (and later
// by mpirun/srun), not by hand; hidden from --help.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/global_options.h"

namespace dtb::cli {

void addWorkerCommand(CLI::App& app, GlobalOptions& global);

}  // namespace dtb::cli
