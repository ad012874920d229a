// A problem found in a matrix file, with where it is. All problems of a file
// are collected and reported together. A warning is a problem that does not
// stop the matrix (a plugin table no cell uses, a data path not found here).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace dtb::core {

struct SourceLocation {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based; 0 when unknown
};

struct Problem {
  SourceLocation where;
  std::string message;
  bool warning = false;

  // "examples/x.toml:12:5: error: unknown key 'word_size' (did you mean 'world_size'?)"
  std::string format() const;
};

class MatrixError : public std::runtime_error {
 public:
  explicit MatrixError(std::vector<Problem> problems);
  const std::vector<Problem>& problems() const { return problems_; }

 private:
  std::vector<Problem> problems_;
};

}  // namespace dtb::core
