#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/global_options.h"

namespace dtb::cli {

// One file of a plugin scaffold: where it goes (relative to the scaffold's
// folder) and its text.
struct ScaffoldFile {
  std::string path;
  std::string text;
};

// The scaffold of a `kind` plugin named `name` (tools/templates/common/, the
// kind's comparison, same_loss/ or learns/, and tools/templates/<kind>/, with
// the placeholders filled in). Throws
// std::invalid_argument naming the problem when the kind is not one of
// strategy, backend, model, dataset or the name is not lower_snake_case.
std::vector<ScaffoldFile> renderScaffold(const std::string& kind, const std::string& name);

// Writes `files` into `dir`, created if missing. Throws std::runtime_error,
// naming the folder, when it exists and is not an empty folder: a scaffold
// never overwrites anything.
void writeScaffold(const std::filesystem::path& dir, const std::vector<ScaffoldFile>& files);

// `dtbench new KIND NAME [--dir DIR]`: a plugin folder that builds out of
// tree against an installed dtbench (find_package(dtbench)), with a matrix
// against the built-in allreduce and tests.
void addNewCommand(CLI::App& app, GlobalOptions& global);

}  // namespace dtb::cli
