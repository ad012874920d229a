#include "matrix/cell_filter.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

#include "matrix/key_hints.h"
#include "matrix/run_schema.h"

namespace dtb::core {
namespace {

constexpr const char* kOrigin = "--only ";

using Test = std::function<bool(const Cell&)>;

// cells=0,3: indices as `dtbench validate` lists them.
Test indexTest(const std::string& list) {
  std::vector<int> wanted;
  size_t from = 0;
  while (from <= list.size()) {
    const size_t comma = std::min(list.find(',', from), list.size());
    const std::string item = list.substr(from, comma - from);
    size_t used = 0;
    int index = -1;
    try {
      index = std::stoi(item, &used);
    } catch (const std::logic_error&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || index < 0) {
      throw std::invalid_argument("cells takes cell numbers separated by commas (cells=0,3), not '" + item +
                                  "'");
    }
    wanted.push_back(index);
    from = comma + 1;
  }
  return [wanted](const Cell& cell) {
    return std::find(wanted.begin(), wanted.end(), cell.index) != wanted.end();
  };
}

// Every key a cell of `plan` may have, with its declaration.
std::vector<ParamSpec> knownKeys(const Plan& plan) {
  std::vector<ParamSpec> keys = runSchema();
  keys.push_back(*findDerivedKey(kGlobalBatchKey));
  keys.push_back(*findDerivedKey(kEffectiveLrKey));
  for (const auto& [id, plugin] : plan.plugins) {
    for (ParamSpec spec : plugin->params()) {
      spec.name = std::string(kindName(plugin->kind())) + "." + plugin->name() + "." + spec.name;
      keys.push_back(std::move(spec));
    }
  }
  return keys;
}

// KEY=VALUE: the cell has KEY with VALUE, or with one of VALUE's elements.
Test valueTest(const std::string& key, const std::string& text, const std::vector<ParamSpec>& keys) {
  auto spec = std::find_if(keys.begin(), keys.end(), [&](const ParamSpec& s) { return s.name == key; });
  if (spec == keys.end()) {
    std::string message = "unknown key '" + key + "'" + unknownKeyHint(key, keys);
    if (key.find('.') != std::string::npos)
      message += "; plugin keys are KIND.NAME.PARAM of a plugin some cell uses";
    throw std::invalid_argument(message);
  }
  std::vector<ParamValue> values;
  const bool anyOf = text.starts_with("[") && spec->type != DTB_PARAM_INT_LIST;
  if (anyOf) {
    toml::table parsed;
    try {
      parsed = toml::parse("v = " + text);
    } catch (const toml::parse_error& e) {
      throw std::invalid_argument("'" + text + "' is no TOML array: " + std::string(e.description()));
    }
    for (const toml::node& element : *parsed["v"].as_array()) {
      auto value = paramValueFromToml(spec->type, element);
      if (!value) {
        throw std::invalid_argument("'" + key + "' is " + std::string(paramTypeName(spec->type)) + ", and '" +
                                    text + "' holds another type");
      }
      values.push_back(*value);
    }
  } else {
    values.push_back(parseParamLiteral(spec->type, text));  // says what is wrong
  }
  if (spec->type == DTB_PARAM_FLOAT) {
    for (ParamValue& v : values) {
      if (const auto* i = std::get_if<int64_t>(&v)) v = static_cast<double>(*i);
    }
  }
  return [key, values](const Cell& cell) {
    const ParamValue* value = cell.find(key);
    return value && std::find(values.begin(), values.end(), *value) != values.end();
  };
}

}  // namespace

void filterCells(Plan& plan, const std::vector<std::string>& only) {
  if (only.empty()) return;
  const std::vector<ParamSpec> keys = knownKeys(plan);
  std::vector<Problem> problems;
  std::vector<Test> tests;
  for (const std::string& expr : only) {
    const SourceLocation where{kOrigin + expr, 0, 0};
    const size_t equals = expr.find('=');
    if (equals == std::string::npos || equals == 0) {
      problems.push_back(
          {where, "--only takes KEY=VALUE, e.g. --only strategy=bucketed or --only cells=0,3"});
      continue;
    }
    const std::string key = expr.substr(0, equals), value = expr.substr(equals + 1);
    try {
      tests.push_back(key == "cells" ? indexTest(value) : valueTest(key, value, keys));
    } catch (const std::invalid_argument& e) {
      problems.push_back({where, e.what()});
    }
  }
  if (!problems.empty()) throw MatrixError(std::move(problems));
  std::erase_if(plan.cells, [&](const Cell& cell) {
    return !std::all_of(tests.begin(), tests.end(), [&](const Test& test) { return test(cell); });
  });
  if (plan.cells.empty()) {
    std::string all;
    for (const std::string& expr : only) all += std::string(all.empty() ? "" : " ") + kOrigin + expr;
    throw MatrixError({{{all, 0, 0}, "no cell of the matrix matches every --only"}});
  }
}

}  // namespace dtb::core
