// Turns a parsed matrix into the list of cells to run, checking everything
// against the run schema and the plugins' declared parameters first.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "matrix/cell.h"
#include "matrix/matrix_file.h"
#include "plugin/loader.h"

namespace dtb::core {

struct Plan {
  std::string name;
  std::string description;
  int64_t repeats = 1;
  std::vector<Cell> cells;
  // What does not stop the matrix but may not be what was meant (a plugin
  // table no cell uses, a data path missing here), each with its line.
  std::vector<Problem> warnings;
  // "strategy/zero" -> the plugin, for every plugin some cell uses.
  std::map<std::string, std::shared_ptr<const LoadedPlugin>> plugins;
};

// What the plan is for: running here, or checking a matrix that may run
// elsewhere (dtbench validate, --sbatch), where what this machine lacks (a
// GPU for device = "cuda") is a warning, not an error.
enum class PlanScope { kRunHere, kCheckOnly };

// Throws MatrixError listing every problem at once, each with file:line:col
// (the warnings among them, marked as such).
Plan planMatrix(const MatrixFile& matrix, const PluginLoader& loader, PlanScope scope = PlanScope::kRunHere);

}  // namespace dtb::core
