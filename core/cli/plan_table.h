// Printing a planned matrix: a summary line and a table of its cells.
#pragma once

#include <cstdio>
#include <string>

#include "matrix/planner.h"

namespace dtb::cli {

// "examples/x.toml: experiment "x": 6 cells x 3 repeats = 18 runs"
std::string planSummary(const std::string& file, const core::Plan& plan);

// One row per cell (the first `limit`; 0 for all), one column per key whose
// value differs between cells, plus the cell's world size and global batch.
void printCellTable(std::FILE* out, const core::Plan& plan, size_t limit);

}  // namespace dtb::cli
