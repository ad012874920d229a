#include "plugin/param_spec.h"

#include <toml++/toml.h>

#include <cmath>
#include <cstring>
#include <set>
#include <sstream>
#include <stdexcept>

namespace dtb::core {
namespace {

// Bytes of dtb_param_spec_t in ABI 1.0: what every descriptor must provide.
constexpr size_t kMinSpecSize = offsetof(dtb_param_spec_t, choices) + sizeof(const char*);

bool validName(std::string_view name) {
  if (name.empty() || !(name[0] >= 'a' && name[0] <= 'z')) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

std::vector<std::string> splitChoices(const char* text) {
  std::vector<std::string> out;
  if (text == nullptr) return out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, '|')) out.push_back(item);
  return out;
}

}  // namespace

std::optional<ParamValue> paramValueFromToml(dtb_param_type_t type, const toml::node& node) {
  switch (type) {
    case DTB_PARAM_BOOL:
      if (auto v = node.value_exact<bool>()) return *v;
      break;
    case DTB_PARAM_INT:
      if (auto v = node.value_exact<int64_t>()) return *v;
      break;
    case DTB_PARAM_FLOAT:
      if (auto v = node.value_exact<double>()) return *v;
      if (auto v = node.value_exact<int64_t>()) return static_cast<double>(*v);
      break;
    case DTB_PARAM_STRING:
      if (auto v = node.value_exact<std::string>()) return *v;
      break;
    case DTB_PARAM_INT_LIST:
      if (const toml::array* array = node.as_array()) {
        std::vector<int64_t> list;
        for (const toml::node& element : *array) {
          auto v = element.value_exact<int64_t>();
          if (!v) return std::nullopt;
          list.push_back(*v);
        }
        return list;
      }
      break;
  }
  return std::nullopt;
}

namespace {

// A bound as the user would write it: 1000000 for an integer, not 1e+06.
std::string boundText(const ParamSpec& spec, double bound) {
  if (spec.type != DTB_PARAM_FLOAT && std::abs(bound) < 9e15)
    return std::to_string(static_cast<int64_t>(bound));
  std::ostringstream text;
  text << bound;
  return text.str();
}

// `shown` is the value as given (an int64 near 2^63 is not exact as a double).
std::optional<std::string> checkRange(const ParamSpec& spec, double value, const std::string& shown) {
  if (spec.minValue && value < *spec.minValue)
    return shown + " is below the minimum " + boundText(spec, *spec.minValue);
  if (spec.maxValue && value > *spec.maxValue)
    return shown + " is above the maximum " + boundText(spec, *spec.maxValue);
  return std::nullopt;
}

}  // namespace

std::string_view paramTypeName(dtb_param_type_t type) {
  switch (type) {
    case DTB_PARAM_BOOL:
      return "bool";
    case DTB_PARAM_INT:
      return "int";
    case DTB_PARAM_FLOAT:
      return "float";
    case DTB_PARAM_STRING:
      return "string";
    case DTB_PARAM_INT_LIST:
      return "int list";
  }
  return "unknown";
}

ParamValue parseParamLiteral(dtb_param_type_t type, std::string_view text) {
  try {
    toml::table parsed = toml::parse("v = " + std::string(text));
    if (const toml::node* node = parsed.get("v")) {
      if (auto value = paramValueFromToml(type, *node)) return *value;
    }
  } catch (const toml::parse_error&) {
    if (type == DTB_PARAM_STRING) return std::string(text);  // a bare word, e.g. ring
  }
  throw std::invalid_argument("'" + std::string(text) + "' is not a valid " +
                              std::string(paramTypeName(type)));
}

std::optional<std::string> checkParamValue(const ParamSpec& spec, const ParamValue& value) {
  const bool typeOk =
      (spec.type == DTB_PARAM_BOOL && std::holds_alternative<bool>(value)) ||
      (spec.type == DTB_PARAM_INT && std::holds_alternative<int64_t>(value)) ||
      (spec.type == DTB_PARAM_FLOAT && std::holds_alternative<double>(value)) ||
      (spec.type == DTB_PARAM_STRING && std::holds_alternative<std::string>(value)) ||
      (spec.type == DTB_PARAM_INT_LIST && std::holds_alternative<std::vector<int64_t>>(value));
  if (!typeOk) {
    return "expected " + std::string(paramTypeName(spec.type)) + ", got " + formatParamValue(value);
  }
  if (const auto* i = std::get_if<int64_t>(&value)) return checkRange(spec, double(*i), std::to_string(*i));
  if (const auto* d = std::get_if<double>(&value)) {
    // nan passes every comparison with a bound, and no setting means inf.
    if (!std::isfinite(*d)) return formatParamValue(value) + " is not a finite number";
    return checkRange(spec, *d, formatParamValue(value));
  }
  if (const auto* list = std::get_if<std::vector<int64_t>>(&value)) {
    for (int64_t element : *list) {
      if (auto problem = checkRange(spec, double(element), std::to_string(element)))
        return "element " + *problem;
    }
  }
  if (const auto* s = std::get_if<std::string>(&value); s && !spec.choices.empty()) {
    for (const std::string& choice : spec.choices) {
      if (choice == *s) return std::nullopt;
    }
    std::string allowed;
    for (const std::string& choice : spec.choices) allowed += (allowed.empty() ? "" : ", ") + choice;
    return "'" + *s + "' is not one of: " + allowed;
  }
  return std::nullopt;
}

std::string formatParamValue(const ParamValue& value) {
  struct Formatter {
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const {
      std::ostringstream out;
      out << d;
      return out.str();
    }
    std::string operator()(const std::string& s) const { return "\"" + s + "\""; }
    std::string operator()(const std::vector<int64_t>& list) const {
      std::string out = "[";
      for (size_t i = 0; i < list.size(); ++i) out += (i ? ", " : "") + std::to_string(list[i]);
      return out + "]";
    }
  };
  return std::visit(Formatter{}, value);
}

std::vector<ParamSpec> readParamSpecs(const dtb_param_spec_t* params, uint32_t count) {
  std::vector<ParamSpec> specs;
  if (count == 0) return specs;
  if (params == nullptr) {
    throw std::invalid_argument("declares " + std::to_string(count) + " parameters but params is NULL");
  }
  // Strided by the plugin's own struct size, so a plugin built against a
  // newer minor version (larger spec struct) is read correctly.
  const size_t stride = params[0].struct_size;
  if (stride < kMinSpecSize) {
    throw std::invalid_argument("dtb_param_spec_t.struct_size is " + std::to_string(stride) +
                                ", ABI 1.0 needs at least " + std::to_string(kMinSpecSize));
  }
  std::set<std::string> seen;
  const auto* bytes = reinterpret_cast<const unsigned char*>(params);
  for (uint32_t i = 0; i < count; ++i) {
    const auto& raw = *reinterpret_cast<const dtb_param_spec_t*>(bytes + i * stride);
    const std::string where = "parameter #" + std::to_string(i);
    if (raw.name == nullptr || !validName(raw.name)) {
      throw std::invalid_argument(where + ": name must be lower_snake_case, got '" +
                                  std::string(raw.name ? raw.name : "(null)") + "'");
    }
    ParamSpec spec;
    spec.name = raw.name;
    const std::string named = "parameter '" + spec.name + "'";
    if (!seen.insert(spec.name).second) throw std::invalid_argument(named + " is declared twice");
    if (raw.type < DTB_PARAM_BOOL || raw.type > DTB_PARAM_INT_LIST) {
      throw std::invalid_argument(named + ": unknown type " + std::to_string(raw.type));
    }
    spec.type = raw.type;
    if (raw.doc == nullptr || *raw.doc == '\0') throw std::invalid_argument(named + ": no doc");
    spec.doc = raw.doc;
    if (raw.flags & DTB_PARAM_HAS_MIN) spec.minValue = raw.min_value;
    if (raw.flags & DTB_PARAM_HAS_MAX) spec.maxValue = raw.max_value;
    if (spec.type == DTB_PARAM_STRING) spec.choices = splitChoices(raw.choices);
    if (raw.default_value != nullptr) {
      try {
        spec.defaultValue = parseParamLiteral(spec.type, raw.default_value);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(named + ": default " + e.what());
      }
      if (auto problem = checkParamValue(spec, *spec.defaultValue)) {
        throw std::invalid_argument(named + ": default " + *problem);
      }
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

}  // namespace dtb::core
