// One key of a matrix as the planner holds it: its values of the declared
// type (one fixed value, or an axis) and where the matrix set it.
#pragma once

#include <string>
#include <vector>

#include "matrix/problem.h"
#include "plugin/param_spec.h"

namespace dtb::core {

struct Column {
  std::string key;  // "world_size" or "strategy.bucketed.bucket_cap_mb"
  std::vector<ParamValue> values;
  bool axis = false;
  SourceLocation where;
};

// An exclude or include entry: the keys it matches on.
using Rule = std::vector<Column>;

// The prefix "strategy.bucketed." of a plugin key; "" for run keys.
inline std::string ownerOf(const std::string& key) {
  const size_t first = key.find('.');
  if (first == std::string::npos) return "";
  return key.substr(0, key.find('.', first + 1) + 1);
}

}  // namespace dtb::core
