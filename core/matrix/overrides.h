// `--set KEY=VALUE`: a key of a matrix given on the command line, over what
// the file says. VALUE is read with TOML's rules, as in the file (0.1 is a
// float, [1, 2] an axis, "x" a string); a bare word that is no TOML value
// (bucketed) is taken as a string, as `dtbench plugins` reads defaults.
#pragma once

#include <toml++/toml.h>

#include <string>
#include <vector>

#include "matrix/problem.h"

namespace dtb::core {

// Where a problem with a --set value is reported: "--set epochs=two", no line.
inline constexpr const char* kSetOrigin = "--set ";

// Writes each of `sets` ("epochs=1", "strategy.zero.stage=2", "repeats=1")
// into `document`: a plain key into [run], repeats into [matrix], KIND.NAME.PARAM
// into [KIND.NAME] (made if missing). Every node written carries its --set
// text as its source, so the planner blames the option, not a line of the
// file. What is wrong with a key's shape goes to `problems`; whether the key
// exists is the planner's question, answered as for the file.
void applyOverrides(toml::table& document, const std::vector<std::string>& sets,
                    std::vector<Problem>& problems);

}  // namespace dtb::core
