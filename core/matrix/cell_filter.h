// `--only EXPR`: run a subset of a planned matrix's cells. EXPR is
// KEY=VALUE, with any key a cell has (a [run] key, a derived key, or
// KIND.NAME.PARAM) and VALUE read with TOML's rules as in the file (an array
// is "any of"); or cells=0,3 for cells by their index in `dtbench validate`'s
// table. A cell stays when every EXPR holds; it keeps its index.
#pragma once

#include <string>
#include <vector>

#include "matrix/planner.h"

namespace dtb::core {

// Keeps the cells of `plan` every one of `only` matches. Throws MatrixError
// naming an unknown key (with "did you mean"), a value of the wrong type, or
// a filter that leaves no cell.
void filterCells(Plan& plan, const std::vector<std::string>& only);

}  // namespace dtb::core
