// A plugin's declared parameters, copied out of its descriptor into C++
// values, and the checks every value of such a parameter must pass (from a
// default in the descriptor here; from a TOML matrix later).
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "dtbench/dtbench.h"

namespace dtb::core {

using ParamValue = std::variant<bool, int64_t, double, std::string, std::vector<int64_t>>;

struct ParamSpec {
  std::string name;
  dtb_param_type_t type = DTB_PARAM_INT;
  std::optional<ParamValue> defaultValue;  // nullopt: required
  std::string doc;
  std::optional<double> minValue;
  std::optional<double> maxValue;
  std::vector<std::string> choices;  // STRING only; empty: any
};

// "bool", "int", "float", "string", "int list".
std::string_view paramTypeName(dtb_param_type_t type);

// Parses a value written in TOML syntax ("25", "1e-3", "true", "\"ring\"",
// "[512, 256]") as `type`. A STRING may also be given bare (ring). An INT is
// accepted where a FLOAT is declared. Throws std::invalid_argument saying
// what is wrong.
ParamValue parseParamLiteral(dtb_param_type_t type, std::string_view text);

// The TOML value `node` as `type` (an integer is accepted for FLOAT), or
// nullopt when it is of another type.
std::optional<ParamValue> paramValueFromToml(dtb_param_type_t type, const toml::node& node);

// The problem with `value` for `spec` (wrong type, out of range, not one of
// the choices), or nullopt when it is acceptable.
std::optional<std::string> checkParamValue(const ParamSpec& spec, const ParamValue& value);

// The value as it would be written in TOML.
std::string formatParamValue(const ParamValue& value);

// Copies and validates a descriptor's parameter array. Throws
// std::invalid_argument naming the parameter and what is wrong.
std::vector<ParamSpec> readParamSpecs(const dtb_param_spec_t* params, uint32_t count);

}  // namespace dtb::core
