#pragma once

#include <CLI/CLI.hpp>

#include "cli/global_options.h"

namespace dtb::cli {

// `dtbench project --system FILE [--bytes SIZE] [--gpus N,...]`: what an
// all-reduce costs on a target system from one node to 1,024 GPUs, by the
// alpha-beta models of NCCL's ring, tree and hierarchical schedules
// (projection/collective_cost.h, docs/projection.md).
void addProjectCommand(CLI::App& app, GlobalOptions& global);

}  // namespace dtb::cli
