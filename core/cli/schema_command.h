#pragma once

#include <CLI/CLI.hpp>

#include "cli/global_options.h"

namespace dtb::cli {

// `dtbench schema [DB] [NAME...]`: the store's tables and views, each with
// one line on what it holds, and their columns with type, unit and meaning
// (from the comments of the SQL that made them: store/schema_docs.h). Without
// DB, this dtbench's own schema.
void addSchemaCommand(CLI::App& app, GlobalOptions& global);

}  // namespace dtb::cli
