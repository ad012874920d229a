// What the matrix tests share: a plugin loader over the test plugins and
// the built ones, and the formatted problems of a plan that must be refused.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "matrix/problem.h"
#include "plugin/loader.h"
#include "plugin/search_path.h"

namespace dtb::testing {

inline core::PluginLoader matrixTestLoader() {
  return core::PluginLoader(core::SearchPath({DTBENCH_TEST_PLUGIN_DIR, DTBENCH_PLUGIN_DIR}));
}

// The problems `plan()` reports, one formatted line each; a plan that
// goes through fails the test.
template <typename PlanFn>
std::vector<std::string> problemsOf(PlanFn&& plan, const std::string& context = "") {
  try {
    plan();
  } catch (const core::MatrixError& e) {
    std::vector<std::string> lines;
    for (const core::Problem& p : e.problems()) lines.push_back(p.format());
    return lines;
  }
  ADD_FAILURE() << "planned without problems" << (context.empty() ? "" : ":\n" + context);
  return {};
}

inline bool anyLineContains(const std::vector<std::string>& lines, const std::string& text) {
  for (const std::string& line : lines) {
    if (line.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace dtb::testing
