// The words of a record line (record_channel.h): numbers that may be
// unknown ("nan"), and a step's phases as `column=value` fields, named by
// train/step_phases.h, so a phase added there travels with no change here
// (and a name the reader does not know is skipped, not misread).
#pragma once

#include <istream>
#include <optional>
#include <string>

#include "train/step_phases.h"

namespace dtb::core {

std::string number(double v);  // "%.9g", "nan"
std::string number(const std::optional<double>& v);
// The whole next word as a number, or nullopt for "nan"; throws
// std::invalid_argument on anything else ("0.01[1,1]<stdout>:23").
std::optional<double> optionalNumber(std::istream& in);

// " data_s=0.1 forward_s=0.2 ...": the phases of `scope` (kPerStep: all).
std::string phaseFields(const PerPhase<std::optional<double>>& phases, PhaseScope scope);
// Reads `column=value` fields to the end of the line into `phases`. Every
// phase of `scope` must be there (its value may be "nan"): a line cut short
// is no record. A name this reader does not know is skipped.
void readPhaseFields(std::istream& in, PerPhase<std::optional<double>>& phases, PhaseScope scope);

}  // namespace dtb::core
