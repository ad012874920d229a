// `dtbench run MATRIX --sbatch FILE`: the batch script a user submits on a
// Slurm cluster (`sbatch FILE`). It asks for as many tasks as the matrix's
// largest cell has ranks, and runs the same `dtbench run` inside the
// allocation with launcher = "srun", so every cell's ranks are Slurm tasks.
#pragma once

#include <string>
#include <vector>

namespace dtb::cli {

struct SbatchRequest {
  std::string jobName;               // the experiment's name
  int64_t ntasks = 1;                // the largest world_size of the matrix
  int64_t nodes = 0;                 // --nodes; 0 lets Slurm decide
  std::string output;                // #SBATCH --output pattern (absolute)
  std::string workDir;               // where dtbench run starts (the caller's directory)
  std::vector<std::string> command;  // dtbench run ..., every path absolute
};

// The script's text: #SBATCH lines, then the command, each argument quoted
// for the shell.
std::string sbatchScript(const SbatchRequest& request);

}  // namespace dtb::cli
