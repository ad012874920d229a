#include "launch/local_launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <optional>
#include <vector>

#include "launch/local_ranks.h"
#include "launch/rank_output.h"

namespace dtb::core {
namespace {

using Clock = std::chrono::steady_clock;

// A collective timed out on some rank: the culprit is a rank that never
// joined it — alive, yet with no error of its own. Names each such rank
// (stopped by a signal or a debugger, or hung or busy) before `cause`;
// `cause` alone when there is none.
std::string withRanksThatNeverJoined(const std::string& cause, const std::vector<Rank>& ranks,
                                     const RankOutput& output) {
  if (cause.find("timeout") == std::string::npos && cause.find("timed out") == std::string::npos)
    return cause;
  std::string culprits;
  std::vector<size_t> silent;  // alive, running, and no error of their own
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i].exited || !output.errorOf(static_cast<int>(i)).empty()) continue;
    const char state = processState(ranks[i].pid);
    if (state == 'T' || state == 't') {
      culprits += "rank " + std::to_string(i) +
                  " is stopped (SIGSTOP or a debugger) and never joined the collective; ";
    } else {
      silent.push_back(i);
    }
  }
  if (silent.size() == 1) {
    culprits += "rank " + std::to_string(silent[0]) +
                " never joined the collective (hung or busy: it reported no error); ";
  } else if (!silent.empty()) {
    // With more ranks, a silent one may be another survivor still waiting
    // out its own timeout: do not blame them all.
    std::string list;
    for (const size_t i : silent) list += (list.empty() ? "" : ", ") + std::to_string(i);
    culprits += "ranks " + list +
                " had reported no error (one or more never joined the collective: hung or busy; "
                "the others were still waiting); ";
  }
  return culprits + cause;
}

// Which ranks have ended, and how: the first killed by a signal, and the
// first that failed at all (-1 where none).
struct Reaped {
  bool allDone = true;
  int signalled = -1;
  int failed = -1;
};

Reaped reapRanks(std::vector<Rank>& ranks) {
  Reaped reaped;
  for (size_t i = 0; i < ranks.size(); ++i) {
    Rank& r = ranks[i];
    if (!r.exited && waitpid(r.pid, &r.status, WNOHANG) == r.pid) r.exited = true;
    if (!r.exited) {
      reaped.allDone = false;
      continue;
    }
    if (WIFSIGNALED(r.status) && reaped.signalled < 0) reaped.signalled = static_cast<int>(i);
    if ((WIFSIGNALED(r.status) || WEXITSTATUS(r.status) != 0) && reaped.failed < 0)
      reaped.failed = static_cast<int>(i);
  }
  return reaped;
}

// The cause of a failed run, most telling first: a rank killed by a signal
// (the others only lost it), a rank's own error, an error from a failed
// collective, a bare exit code.
std::string failureCause(const Reaped& reaped, const std::vector<Rank>& ranks, const RankOutput& output) {
  if (reaped.signalled >= 0) {
    return describeExit(reaped.signalled, ranks[reaped.signalled], output.errorOf(reaped.signalled),
                        output.hostOf(reaped.signalled));
  }
  if (!output.firstOwnError().empty()) return withRanksThatNeverJoined(output.firstOwnError(), ranks, output);
  if (!output.firstPeerError().empty())
    return withRanksThatNeverJoined(output.firstPeerError(), ranks, output);
  return describeExit(reaped.failed, ranks[reaped.failed], output.errorOf(reaped.failed),
                      output.hostOf(reaped.failed));
}

// Reads records and reaps ranks until the run ends: every rank done, a
// failure (after the other ranks' reports are in, or a moment for them), a
// Ctrl-C, or silence past the limit.
LaunchOutcome watchRanks(const LaunchOptions& options, std::vector<Rank>& ranks,
                         const RecordHandler& onRecord) {
  RankOutput output(options.world, onRecord);
  std::optional<Clock::time_point> settleUntil;  // after a failure, until the other ranks' reports are in
  std::chrono::system_clock::time_point failedAt;
  for (;;) {
    readRanks(ranks, output);
    const Reaped reaped = reapRanks(ranks);
    // Their last records (the memory ledger, the gradient profile) may have
    // come after the read above.
    if (reaped.allDone) drainRanks(ranks, output, std::chrono::seconds(1));
    if (reaped.failed >= 0 && !settleUntil) {
      settleUntil = Clock::now() + std::chrono::milliseconds(1500);
      failedAt = std::chrono::system_clock::now();
    }
    if (reaped.failed >= 0 && (reaped.allDone || Clock::now() > *settleUntil)) {
      LaunchOutcome failed{LaunchOutcome::Status::kFailed, failureCause(reaped, ranks, output)};
      failed.failedAt = failedAt;
      return failed;
    }
    if (reaped.allDone) return {};
    if (options.interrupted && options.interrupted->load()) {
      return {LaunchOutcome::Status::kInterrupted, "stopped by the user (Ctrl-C)"};
    }
    const double silent = output.secondsSilent();
    if (silent > options.silenceLimitS) {
      return {LaunchOutcome::Status::kFailed, "no rank reported anything for " +
                                                  std::to_string(static_cast<int>(silent)) +
                                                  " s (a hang?); every rank was stopped"};
    }
  }
}

}  // namespace

LaunchOutcome launchLocal(const LaunchOptions& options, const RecordHandler& onRecord) {
  std::vector<Rank> ranks(options.world);
  pid_t group = 0;
  const pid_t parent = getpid();
  for (int r = 0; r < options.world; ++r) {
    if (std::string error = startRank(options, r, parent, group, ranks); !error.empty()) {
      stopAll(ranks, group);
      return {LaunchOutcome::Status::kFailed, error};
    }
  }
  LaunchOutcome outcome = watchRanks(options, ranks, onRecord);
  stopAll(ranks, group);
  for (Rank& r : ranks) {
    if (r.fd >= 0) close(r.fd);
  }
  return outcome;
}

}  // namespace dtb::core
