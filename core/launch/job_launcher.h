// Starts the ranks of one run through a job launcher: `mpirun` (Open MPI) on
// this machine or the hosts of a hostfile, or `srun` inside a Slurm
// allocation. Each worker finds its rank and world size in the environment
// the launcher gives it and writes its records to stdout, which the launcher
// forwards tagged with the rank (mpirun --tag-output, srun --label). A rank
// that dies makes the launcher end the job; the outcome names the rank from
// the launcher's own report.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "launch/launch.h"
#include "launch/tagged_lines.h"

namespace dtb::core {

// The command that starts options.world workers. Open MPI refuses root
// without --allow-run-as-root; --oversubscribe allows more ranks than cores;
// --bind-to none leaves the cores to the OS, as the local launcher does.
std::vector<std::string> jobCommand(const LaunchOptions& options, bool runningAsRoot);

// Whether mpirun starts every rank on this host: no hostfile, and no host
// named in launcher_args (--host, -H).
bool mpirunOnOneHost(const std::string& hostfile, const std::vector<std::string>& launcherArgs);

// Whether some word of launcher_args contains `word`.
bool launcherArgsSay(const std::vector<std::string>& launcherArgs, std::string_view word);

// What the launcher said about a rank that died, as
// "rank 1 was killed by signal 9 (SIGKILL)", or "" when it said nothing.
std::string deathReport(const std::string& launcherErrors);

LaunchOutcome launchJob(const LaunchOptions& options, const RecordHandler& onRecord);

}  // namespace dtb::core
