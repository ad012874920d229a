// The worker processes of a local run, as the local launcher and the elastic
// one (elastic_launcher.h) start, read and stop them: one process a rank,
// each writing its records to a pipe of its own, all in one process group
// that the first founds.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "launch/launch.h"
#include "launch/rank_output.h"
#include "launch/remote_shell.h"

namespace dtb::core {

struct Rank {
  pid_t pid = -1;
  int fd = -1;        // read end of its record pipe
  int lifeline = -1;  // ssh launcher: the write end of the worker's standard input, never written
  std::string host;   // ssh launcher: the host its remote shell runs it on
  bool exited = false;
  int status = 0;
};

// "rank 1 was killed by signal 9 (SIGKILL)", "rank 0 exited with code 1: <error>".
// A remote rank is named with its host — the one it reported
// (`reportedHost`, RankOutput::hostOf), else the hostfile's — and when it
// reported no error, what the remote shell's own exit codes mean (255: ssh
// failed or lost the worker; 127, 126: no dtbench to run there).
std::string describeExit(int rank, const Rank& r, const std::string& error, const std::string& reportedHost);

// Forks rank `r`'s worker (`dtbench worker --rank r`) into the run's process
// group (founded by the first rank: `group` is 0 until then); its records
// come back on ranks[r].fd. The ssh launcher runs it on the host of
// `place`, when given (the elastic launcher across hosts places its
// workers itself), else on the hostfile's host of slot r. Returns why it
// could not, or "" once it runs.
std::string startRank(const LaunchOptions& options, int r, pid_t parent, pid_t& group,
                      std::vector<Rank>& ranks, const std::optional<SlotPlace>& place = std::nullopt);

// Waits a moment for any rank to write, then feeds what each wrote to
// `output`; closes the pipe of a rank that closed its end.
void readRanks(std::vector<Rank>& ranks, RankOutput& output);
// Once the ranks have exited: reads what they wrote after the last
// readRanks (a rank may write its last records and exit between a read and
// the reaping that sees it gone), until every pipe has ended or `bound`
// passed (a process the worker started may still hold a pipe open).
void drainRanks(std::vector<Rank>& ranks, RankOutput& output, std::chrono::milliseconds bound);

// SIGTERM to the group, SIGKILL to whoever is left after 3 s; reaps every rank.
void stopAll(std::vector<Rank>& ranks, pid_t group);

// The state letter of /proc/<pid>/stat: 'T' stopped (SIGSTOP), 't' traced.
char processState(pid_t pid);

}  // namespace dtb::core
