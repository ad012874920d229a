#include "protocol/record_fields.h"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace dtb::core {

std::string number(double v) {
  if (std::isnan(v)) return "nan";
  char text[40];
  std::snprintf(text, sizeof(text), "%.9g", v);
  return text;
}

std::string number(const std::optional<double>& v) { return v ? number(*v) : "nan"; }

std::optional<double> optionalNumber(std::istream& in) {
  std::string token;
  in >> token;
  if (token.empty() || token == "nan") return std::nullopt;
  size_t used = 0;
  const double value = std::stod(token, &used);
  if (used != token.size()) throw std::invalid_argument("not a number: " + token);
  return value;
}

std::string phaseFields(const PerPhase<std::optional<double>>& phases, PhaseScope scope) {
  std::string fields;
  for (const PhaseInfo& p : kPhases) {
    if (scope == PhaseScope::kPerStep || p.scope == PhaseScope::kPerEpoch)
      fields += " " + std::string(p.column) + "=" + number(phases[p.id]);
  }
  return fields;
}

void readPhaseFields(std::istream& in, PerPhase<std::optional<double>>& phases, PhaseScope scope) {
  PerPhase<bool> seen;
  for (std::string field; in >> field;) {
    const size_t equals = field.find('=');
    if (equals == std::string::npos) throw std::invalid_argument("not a phase field: " + field);
    std::istringstream value(field.substr(equals + 1));
    const std::optional<double> seconds = optionalNumber(value);
    for (const PhaseInfo& p : kPhases) {
      if (field.compare(0, equals, p.column) == 0 && std::string_view(p.column).size() == equals) {
        phases[p.id] = seconds;
        seen[p.id] = true;
      }
    }
  }
  in.clear(in.rdstate() & ~std::ios::failbit);  // the end of the line ended the fields, as it should
  for (const PhaseInfo& p : kPhases) {
    if (!seen[p.id] && (scope == PhaseScope::kPerStep || p.scope == PhaseScope::kPerEpoch))
      throw std::invalid_argument(std::string("no ") + p.column + " field");
  }
}

}  // namespace dtb::core
