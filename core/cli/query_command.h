// `dtbench query DB "SQL"` and `dtbench runs DB`: reading the result store.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/global_options.h"

namespace dtb::cli {

void addQueryCommand(CLI::App& app, GlobalOptions& global);
void addRunsCommand(CLI::App& app, GlobalOptions& global);

}  // namespace dtb::cli
