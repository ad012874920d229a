// The parameter values one plugin instance runs with: what the user gave,
// checked against the plugin's declarations and completed with defaults.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "plugin/loaded_plugin.h"
#include "plugin/param_spec.h"

namespace dtb::core {

using ParamValues = std::map<std::string, ParamValue>;

// Throws std::invalid_argument listing every problem, one per line: an
// unknown key (with the closest declared name), a value of the wrong type
// or out of range, a required parameter left out.
ParamValues resolveConfig(const LoadedPlugin& plugin, const ParamValues& given);

// The declared name closest to `key` (edit distance), or "" when none is close.
std::string closestName(const std::string& key, const std::vector<ParamSpec>& specs);

}  // namespace dtb::core
