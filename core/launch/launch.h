// Starting the ranks of one run and watching them, whichever way they start:
// `local` forks them here (local_launcher.h), `ssh` forks for each rank a
// remote shell that runs it on a hostfile's host (the same launcher,
// remote_shell.h), `mpirun` and `srun` hand them to a job launcher
// (job_launcher.h). Either way records flow back to the coordinator, a rank
// that dies or a run that goes silent stops the run, and the outcome says
// which rank failed and how.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "matrix/cell.h"
#include "protocol/record_channel.h"

namespace dtb::core {

struct LaunchOutcome {
  enum class Status { kOk, kFailed, kInterrupted } status = Status::kOk;
  std::string error;  // for kFailed: which rank, and what happened to it
  int restarts = 0;   // recovery = "restart": how often the workers were started again
  int resets = 0;     // recovery = "elastic": how often the survivors went on in a new world
  // kFailed: when the launcher first saw a rank fail (its exit, its error, the
  // job's end), before it stopped the others; unset when it cannot tell.
  std::optional<std::chrono::system_clock::time_point> failedAt;
};

struct LaunchOptions {
  std::filesystem::path executable;  // dtbench itself
  std::filesystem::path specFile;
  int world = 1;
  int threadsPerWorker = 1;    // OMP_NUM_THREADS of each worker (oneDNN's thread pool)
  double silenceLimitS = 120;  // no record from any rank for this long: a hang
  const std::atomic<bool>* interrupted = nullptr;
  std::string launcher = "local";         // local | mpirun | srun | ssh
  std::string hostfile;                   // mpirun --hostfile, when given; the ssh launcher's hosts
  std::vector<std::string> launcherArgs;  // passed to mpirun/srun before the program; ssh: the remote shell
  std::string interface;                  // the network interface ranks talk over ("" none named)
  // One-host mpirun: where Open MPI puts its shared-memory segments (btl
  // vader), a directory the job launcher makes and reaps; "" its default.
  std::filesystem::path sharedMemoryDir;
};

using RecordHandler = std::function<void(int rank, const Record&)>;

// Runs the workers to completion, calling `onRecord` for each record.
LaunchOutcome launch(const LaunchOptions& options, const RecordHandler& onRecord);

// A run directory that cannot be made: the run fails with this, its cause.
class ScratchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A private directory for one run: its spec and the backends' rendezvous
// store. Ranks a job launcher or the ssh launcher starts may be on other
// hosts, so theirs is on a shared path: the cell's rendezvous_dir, or
// .dtbench-rendezvous beside the database (which a cluster keeps on a shared
// file system). Local runs use the temporary directory ($TMPDIR, else /tmp).
// Throws ScratchError naming the directory.
std::filesystem::path runDirectory(const Cell& cell, const std::string& launcher,
                                   const std::filesystem::path& database, int64_t runId);

// The temporary directory ($TMPDIR, else /tmp). Throws ScratchError naming
// it ("TMPDIR=X: no such directory; " + `use`) when it is not a directory
// this user can write in.
std::filesystem::path temporaryDirectory(const std::string& use);

// Where runDirectory would make the cell's directory; for a local run (the
// temporary directory) throws ScratchError when that is not a directory
// this process can write in (TMPDIR pointing nowhere), before anything runs
// or is stored. (A rendezvous_dir is made when the run starts.)
std::filesystem::path runDirectoryBase(const Cell& cell, const std::string& launcher,
                                       const std::filesystem::path& database);

// Removes a run directory, and the default .dtbench-rendezvous folder it was
// made in once that is empty.
void removeRunDirectory(const std::filesystem::path& directory);

// launcher_args split at spaces.
std::vector<std::string> splitWords(const std::string& text);

}  // namespace dtb::core
