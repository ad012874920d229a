// Starting the ranks of one run and watching them, whichever way they start:
// `local` forks them here (local_launcher.h), `mpirun` and `srun` hand them
// to a job launcher (job_launcher.h). Either way records flow back to the
// coordinator, a rank that dies or a run that goes silent stops the run, and
// the outcome says which rank failed and how.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "run/record_channel.h"

namespace dtb::core {

struct LaunchOutcome {
  enum class Status { kOk, kFailed, kInterrupted } status = Status::kOk;
  std::string error;  // for kFailed: which rank, and what happened to it
};

struct LaunchOptions {
  std::filesystem::path executable;  // dtbench itself
  std::filesystem::path specFile;
  int world = 1;
  int threadsPerWorker = 1;  // OMP_NUM_THREADS of each worker (oneDNN's thread pool)
  double silenceLimitS = 120;  // no record from any rank for this long: a hang
  const std::atomic<bool>* interrupted = nullptr;
  std::string launcher = "local";         // local | mpirun | srun
  std::string hostfile;                   // mpirun --hostfile, when given
  std::vector<std::string> launcherArgs;  // passed to mpirun/srun before the program
};

using RecordHandler = std::function<void(int rank, const Record&)>;

// Runs the workers to completion, calling `onRecord` for each record.
LaunchOutcome launch(const LaunchOptions& options, const RecordHandler& onRecord);

// The launcher a cell runs with: its `launcher`, where "auto" means mpirun
// for backend "mpi" (whose ranks must be an MPI job) and local otherwise.
std::string resolveLauncher(const std::string& launcher, const std::string& backend);

}  // namespace dtb::core
