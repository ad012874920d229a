#include "matrix/cell.h"

#include <stdexcept>

#include "matrix/run_schema.h"

namespace dtb::core {

const ParamValue* Cell::find(const std::string& key) const {
  auto it = values.find(key);
  return it == values.end() ? nullptr : &it->second;
}

std::string Cell::text(const std::string& key) const {
  const ParamValue* value = find(key);
  if (!value) return "";
  if (const auto* s = std::get_if<std::string>(value)) return *s;
  return formatParamValue(*value);
}

namespace {

template <typename T>
T typed(const Cell& cell, const std::string& key, const char* what) {
  const ParamValue* value = cell.find(key);
  if (!value || !std::holds_alternative<T>(*value)) {
    throw std::out_of_range("cell " + std::to_string(cell.index) + " has no " + what + " '" + key + "'");
  }
  return std::get<T>(*value);
}

}  // namespace

int64_t Cell::integer(const std::string& key) const { return typed<int64_t>(*this, key, "integer"); }
double Cell::real(const std::string& key) const { return typed<double>(*this, key, "number"); }
bool Cell::flag(const std::string& key) const { return typed<bool>(*this, key, "boolean"); }
std::vector<int64_t> Cell::integers(const std::string& key) const {
  return typed<std::vector<int64_t>>(*this, key, "list of integers");
}

std::map<std::string, ParamValue> Cell::pluginParams(const std::string& kind) const {
  const std::string prefix = kind + "." + text(kind) + ".";
  std::map<std::string, ParamValue> out;
  for (const auto& [key, value] : values) {
    if (key.starts_with(prefix)) out[key.substr(prefix.size())] = value;
  }
  return out;
}

std::string Cell::configKey() const {
  std::string key;
  for (const auto& [name, value] : values) {
    if (name == "world_size" || name == kGlobalBatchKey || name == kEffectiveLrKey || isJudgingKey(name))
      continue;
    key += (key.empty() ? "" : ";") + name + "=" + formatParamValue(value);
  }
  return key;
}

}  // namespace dtb::core
