#pragma once

#include <CLI/CLI.hpp>

#include "cli/global_options.h"

namespace dtb::cli {

// `dtbench report`: charts and tables of a result store, as HTML or Markdown.
void addReportCommand(CLI::App& app, GlobalOptions& global);

}  // namespace dtb::cli
