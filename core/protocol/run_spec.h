// Everything one worker process needs to train one rank of one run, written
// by the coordinator to a TOML file the worker reads (so a worker can also be
// started by hand, or by mpirun/srun later, from the same file).
#pragma once

#include <toml++/toml.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "matrix/cell.h"

namespace dtb::core {

// Compute threads per rank: the cell's threads_per_worker, or (0) this
// machine's cores divided among the ranks.
int threadsPerRank(const Cell& cell);

struct RunSpec {
  int64_t runId = 0;
  int world = 1;
  std::string storeDir;                 // rendezvous file store shared by the ranks
  std::string prefix;                   // rendezvous key prefix, unique per run
  std::vector<std::string> pluginDirs;  // searched before the default path
  std::string traceDir;                 // trace = true: each rank writes rank<r>.trace.json here
  std::string checkpointDir;  // recovery = "restart": each rank's checkpoints (protocol/checkpoint.h)
  int attempt = 0;            // 0, then 1, 2, ... for each restart of the run
  int64_t resumeStep = -1;    // a restart: the checkpoint's step every rank resumes from; -1 none
  int64_t startedUnixNs = 0;  // when the run began (wall clock): events are timed from it
  Cell cell;
  // Set: a collective sweep (dtbench comm) instead of training, its settings
  // as sweep/sweep_spec.h writes and reads them (run/ knows no more of them).
  std::optional<toml::table> sweep;

  void write(const std::filesystem::path& file) const;
  // Throws std::runtime_error naming the file when it is not a valid spec.
  static RunSpec read(const std::filesystem::path& file);

  // Seconds since startedUnixNs, on this machine's wall clock: when events
  // of the coordinator and of every attempt's workers happened in the run.
  double runSeconds() const;
  // The same for a moment `at` that has passed (a failure the launcher saw).
  double secondsAt(std::chrono::system_clock::time_point at) const;
};

}  // namespace dtb::core
