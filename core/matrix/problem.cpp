#include "matrix/problem.h"

#include <algorithm>

namespace dtb::core {
namespace {

std::string joinProblems(const std::vector<Problem>& problems) {
  std::string text;
  for (const Problem& p : problems) text += (text.empty() ? "" : "\n") + p.format();
  return text;
}

}  // namespace

std::string Problem::format() const {
  std::string text = where.file;
  if (where.line > 0) text += ":" + std::to_string(where.line);
  if (where.line > 0 && where.column > 0) text += ":" + std::to_string(where.column);
  return text + (warning ? ": warning: " : ": error: ") + message;
}

namespace {

// In file order; problems without a line (whole-file ones) last.
std::vector<Problem> sorted(std::vector<Problem> problems) {
  auto order = [](const Problem& p) {
    return std::make_pair(p.where.line > 0 ? p.where.line : 1 << 30, p.where.column);
  };
  std::stable_sort(problems.begin(), problems.end(),
                   [&](const Problem& a, const Problem& b) { return order(a) < order(b); });
  return problems;
}

}  // namespace

MatrixError::MatrixError(std::vector<Problem> problems)
    : std::runtime_error(joinProblems(sorted(problems))), problems_(sorted(std::move(problems))) {}

}  // namespace dtb::core
