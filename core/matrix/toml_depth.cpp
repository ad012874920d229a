#include "matrix/toml_depth.h"

#include <cctype>

namespace dtb::core {

std::optional<TomlDepthProblem> tooDeep(std::string_view text) {
  int line = 1, column = 0;
  int brackets = 0;  // [ and { open now
  int dots = 0;      // key separators on this line so far
  auto deeper = [&](const char* what) {
    return TomlDepthProblem{line, column,
                            std::string(what) + " nests deeper than " + std::to_string(kMaxTomlDepth) +
                                " levels; a matrix needs a handful"};
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
      dots = 0;
      continue;
    }
    if (c == '#') {  // a comment, to the end of the line
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    if (c == '"' || c == '\'') {  // a string: basic or literal, one line or three quotes
      const bool triple = text.substr(i, 3) == std::string(3, c);
      const std::string_view close =
          triple ? std::string_view(c == '"' ? "\"\"\"" : "'''") : std::string_view(&text[i], 1);
      size_t j = i + (triple ? 3 : 1);
      for (; j < text.size(); ++j) {
        if (c == '"' && text[j] == '\\') {
          ++j;  // an escaped character, quotes included
          continue;
        }
        if (!triple && text[j] == '\n') break;  // unterminated: the parser says so
        if (text.substr(j, close.size()) == close) break;
        if (text[j] == '\n') ++line;
      }
      column += static_cast<int>(j - i);
      i = j + (triple ? 2 : 0);
      continue;
    }
    if (c == '[' || c == '{') {
      if (++brackets > kMaxTomlDepth) return deeper("an array, table header or inline table");
    } else if (c == ']' || c == '}') {
      if (brackets > 0) --brackets;
    } else if (c == '.') {
      const bool decimal = i > 0 && i + 1 < text.size() &&
                           std::isdigit(static_cast<unsigned char>(text[i - 1])) &&
                           std::isdigit(static_cast<unsigned char>(text[i + 1]));
      if (!decimal && ++dots > kMaxTomlDepth) return deeper("a dotted key");
    }
  }
  return std::nullopt;
}

}  // namespace dtb::core
