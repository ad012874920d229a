// Runs a planned matrix: every cell x repeat as one run of `world_size`
// worker processes (started by the cell's launcher: local, mpirun, srun), results into the store (the
// coordinator is its only writer), a progress line while it goes, a summary at the end. A failed run is
// stored as failed with its error and the matrix goes on; Ctrl-C stops the current run, stores it as stopped,
// keeps everything already stored, and ends the matrix.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "matrix/matrix_file.h"
#include "matrix/planner.h"
#include "run/run_lifecycle.h"

namespace dtb::core {

// Returns 0 when every run succeeded, 1 when some failed, 130 when stopped.
int runMatrix(const MatrixFile& matrix, const Plan& plan, const RunContext& context);

}  // namespace dtb::core
