// A bound on how deeply a TOML text nests, checked before it is parsed.
// TOML++ parses nested arrays, inline tables and dotted keys recursively: a
// header or key ~40,000 levels deep overflowed its stack (a crash, not an
// error). A matrix needs a handful of levels; refusing more than kMaxDepth
// costs nobody anything.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace dtb::core {

constexpr int kMaxTomlDepth = 64;

struct TomlDepthProblem {
  int line;  // 1-based
  int column;
  std::string message;
};

// The first place `text` nests brackets, braces or dotted-key parts deeper
// than kMaxTomlDepth; nullopt when it never does. Strings and comments are
// skipped; a number's decimal point is not a key separator.
std::optional<TomlDepthProblem> tooDeep(std::string_view text);

}  // namespace dtb::core
