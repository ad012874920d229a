// One cell of an expanded matrix: every value one run is made of.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "plugin/param_spec.h"

namespace dtb::core {

struct Cell {
  int index = 0;  // 0-based, in expansion order
  // Run keys ("world_size"), derived keys ("global_batch_size") and plugin
  // parameters of the cell's plugins ("strategy.bucketed.bucket_cap_mb"),
  // defaults included.
  std::map<std::string, ParamValue> values;

  const ParamValue* find(const std::string& key) const;
  std::string text(const std::string& key) const;  // "" when absent; strings unquoted
  // Typed values; each throws std::out_of_range naming `key` when it is
  // absent or of another type.
  int64_t integer(const std::string& key) const;
  double real(const std::string& key) const;
  bool flag(const std::string& key) const;
  std::vector<int64_t> integers(const std::string& key) const;

  // The parameters of one plugin of the cell, without their prefix.
  std::map<std::string, ParamValue> pluginParams(const std::string& kind) const;

  // Every value except world size and what derives from it: cells with the
  // same key are one configuration at different scales (speed-up, efficiency).
  std::string configKey() const;
};

}  // namespace dtb::core
