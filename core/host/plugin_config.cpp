#include "host/plugin_config.h"

#include <algorithm>
#include <stdexcept>

namespace dtb::core {
namespace {

size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});
    }
  }
  return row[b.size()];
}

}  // namespace

std::string closestName(const std::string& key, const std::vector<ParamSpec>& specs) {
  std::string best;
  size_t bestDistance = std::max<size_t>(2, key.size() / 3) + 1;
  for (const ParamSpec& spec : specs) {
    const size_t distance = editDistance(key, spec.name);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = spec.name;
    }
  }
  return best;
}

ParamValues resolveConfig(const LoadedPlugin& plugin, const ParamValues& given) {
  std::string problems;
  auto report = [&](const std::string& problem) {
    problems += (problems.empty() ? "" : "\n") + plugin.label() + ": " + problem;
  };
  ParamValues resolved;
  for (const auto& [key, value] : given) {
    const ParamSpec* spec = plugin.findParam(key);
    if (spec == nullptr) {
      std::string hint = closestName(key, plugin.params());
      report("unknown parameter '" + key + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
      continue;
    }
    ParamValue checked = value;
    // An integer where a float is declared is what a user means by "25".
    if (spec->type == DTB_PARAM_FLOAT && std::holds_alternative<int64_t>(value)) {
      checked = static_cast<double>(std::get<int64_t>(value));
    }
    if (auto problem = checkParamValue(*spec, checked)) {
      report("parameter '" + key + "': " + *problem);
      continue;
    }
    resolved[key] = checked;
  }
  for (const ParamSpec& spec : plugin.params()) {
    if (resolved.contains(spec.name) || given.contains(spec.name)) continue;
    if (spec.defaultValue) {
      resolved[spec.name] = *spec.defaultValue;
    } else {
      report("parameter '" + spec.name + "' is required (" + spec.doc + ")");
    }
  }
  if (!problems.empty()) throw std::invalid_argument(problems);
  return resolved;
}

}  // namespace dtb::core
