#include "matrix/setting_conversion.h"

#include <cmath>

#include "matrix/path_params.h"

namespace dtb::core {
namespace {

std::string tomlTypeName(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    default:
      return "a date/time";
  }
}

}  // namespace

// An int parameter given as a float that is an exact integer, as DeepSpeed
// configurations write them (reduce_bucket_size = 5e8): that integer.
std::optional<ParamValue> SettingConverter::wholeNumber(const ParamSpec& spec, const toml::node& node,
                                                        const std::string& key) {
  const auto real = node.value_exact<double>();
  if (spec.type != DTB_PARAM_INT || !real) return std::nullopt;
  // 2^63 is a double exactly; every double below it in size fits an int64.
  if (std::isfinite(*real) && std::trunc(*real) == *real && std::abs(*real) < 9223372036854775808.0) {
    return static_cast<int64_t>(*real);
  }
  fail(locate(path_, node), "'" + key + "' expects int, got " + formatParamValue(*real) +
                                ", which is not a whole number (a float is taken for an int only "
                                "when it is one, e.g. 5e8)");
  return std::nullopt;
}

// Converts a setting's TOML value into one value or an axis of `spec`'s type.
std::optional<Column> SettingConverter::convert(const RawSetting& raw, const ParamSpec& spec,
                                                const std::string& key, bool allowAxis) {
  Column column{key, {}, false, raw.where};
  const toml::array* array = raw.node->as_array();
  const bool listType = spec.type == DTB_PARAM_INT_LIST;
  const bool isAxis = array && (!listType || (!array->empty() && array->front().is_array()));
  std::vector<const toml::node*> elements;
  if (isAxis) {
    if (!allowAxis) {
      fail(raw.where, "'" + key + "' takes one value here, not an array");
      return std::nullopt;
    }
    if (array->empty()) {
      fail(raw.where, "empty axis '" + key + "': give at least one value");
      return std::nullopt;
    }
    for (const toml::node& element : *array) elements.push_back(&element);
    column.axis = true;
  } else {
    elements.push_back(raw.node);
  }
  bool ok = true;
  for (const toml::node* element : elements) {
    std::optional<ParamValue> value = paramValueFromToml(spec.type, *element);
    if (!value && element->is_floating_point() && spec.type == DTB_PARAM_INT) {
      value = wholeNumber(spec, *element, key);
      if (!value) {
        ok = false;
        continue;
      }
    }
    if (!value) {
      fail(locate(path_, *element), "'" + key + "' expects " + std::string(paramTypeName(spec.type)) +
                                        ", got " + tomlTypeName(*element));
      ok = false;
      continue;
    }
    if (auto problem = checkParamValue(spec, *value)) {
      fail(locate(path_, *element), "'" + key + "': " + *problem);
      ok = false;
      continue;
    }
    column.values.push_back(std::move(*value));
  }
  if (!ok) return std::nullopt;
  if (isPathParam(spec) && !ownerOf(key).empty()) resolvePaths(column, raw);
  return column;
}

// A relative path a plugin parameter is given in the file is read from the
// file's directory (path_params.h); one given with --set, from the working
// directory, as any path on a command line.
void SettingConverter::resolvePaths(Column& column, const RawSetting& raw) const {
  const std::filesystem::path base = fromCommandLine(raw.where) ? "." : directoryOf(path_);
  for (ParamValue& value : column.values) {
    if (auto* text = std::get_if<std::string>(&value)) *text = resolvePath(base, *text);
  }
}

// A path a cell reads that is not on this machine: a warning, not an error,
// for the data may be only on the hosts that run it (launcher mpirun, srun).
void SettingConverter::checkPathsExist(const Column& column, const RawSetting& raw) {
  const toml::array* array = raw.node->as_array();
  for (size_t i = 0; i < column.values.size(); ++i) {
    const toml::node& element = array ? *array->get(i) : *raw.node;
    const std::string written = element.value_or<std::string>("");
    const auto* resolved = std::get_if<std::string>(&column.values[i]);
    if (!resolved) continue;
    if (auto problem = missingPathProblem(column.key, written, *resolved))
      warnings_.push_back({locate(path_, element), *problem, true});
  }
}

}  // namespace dtb::core
