// What the cells of a plan ask for together, checked once they are made
// (the planner has checked each key's type and range): where they run
// (devices, launchers, networks) and how they recover (restart, elastic,
// faults). Each check reports the first cell it finds wrong, at the key the
// matrix set, and warns once of what may not be what was meant.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "matrix/cell.h"
#include "matrix/planner.h"
#include "matrix/problem.h"
#include "plugin/loaded_plugin.h"

namespace dtb::core {

struct CellChecks {
  const std::vector<Cell>& cells;
  // "strategy/zero" -> the plugin, for every plugin some cell uses.
  const std::map<std::string, std::shared_ptr<const LoadedPlugin>>& plugins;
  // Where the matrix sets `key` (its first line when nowhere).
  std::function<SourceLocation(const std::string& key)> where;
  PlanScope scope;
  std::vector<Problem>& problems;
  std::vector<Problem>& warnings;

  void fail(const std::string& key, std::string message) const {
    problems.push_back({where(key), std::move(message)});
  }
  void warn(const std::string& key, std::string message) const {
    warnings.push_back({where(key), std::move(message), true});
  }
};

// Faults that strike no rank; recovery = "restart" or "elastic" with what
// cannot recover so (recovery_checks.cpp).
void checkRecovery(const CellChecks& checks);

// A GPU a cell cannot have, the ssh launcher without hosts, an emulated
// network no traffic crosses (placement_checks.cpp).
void checkPlacement(const CellChecks& checks);

// Mixed precision where it does not run yet (ZeRO with gradient
// accumulation), an fp16 first loss scale below its floor, and an overflow
// fault outside fp16 (precision_checks.cpp).
void checkPrecision(const CellChecks& checks);

}  // namespace dtb::core
