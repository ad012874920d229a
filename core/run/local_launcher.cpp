#include "run/local_launcher.h"

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

#include "run/environment_block.h"
#include "run/rank_output.h"

namespace dtb::core {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kRecordFd = 3;  // where a worker writes its records

struct Rank {
  pid_t pid = -1;
  int fd = -1;  // read end of its record pipe
  bool exited = false;
  int status = 0;
};

std::string describeExit(int rank, const Rank& r, const std::string& error) {
  if (WIFSIGNALED(r.status)) {
    const int sig = WTERMSIG(r.status);
    const char* name = sigabbrev_np(sig);
    // A crash handler's record says where: "crashed with SIGSEGV in strategy 'x' (...)".
    return "rank " + std::to_string(rank) + " was killed by signal " + std::to_string(sig) + " (SIG" +
           (name ? name : "?") + ")" + (error.empty() ? "" : ": " + error);
  }
  std::string text =
      "rank " + std::to_string(rank) + " exited with code " + std::to_string(WEXITSTATUS(r.status));
  if (!error.empty()) text += ": " + error;
  return text;
}

// The state letter of /proc/<pid>/stat: 'T' stopped (SIGSTOP), 't' traced.
char processState(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() ? stat[close + 2] : '?';
}

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

void stopAll(std::vector<Rank>& ranks, pid_t group) {
  if (group > 0) kill(-group, SIGTERM);
  const auto deadline = Clock::now() + std::chrono::seconds(3);
  for (Rank& r : ranks) {
    // A rank never started has no process: waitpid(-1) would wait for any
    // child (the scratch reaper), and kill(-0) signal our own group.
    if (r.pid <= 0) r.exited = true;
    while (!r.exited) {
      const pid_t done = waitpid(r.pid, &r.status, WNOHANG);
      if (done == r.pid) {
        r.exited = true;
      } else if (Clock::now() > deadline) {
        kill(group > 0 ? -group : r.pid, SIGKILL);  // whoever ignores SIGTERM
        waitpid(r.pid, &r.status, 0);
        r.exited = true;
      } else {
        usleep(10000);
      }
    }
  }
}

// Forks rank `r`'s worker into the run's process group (founded by the
// first rank: `group` is 0 until then); its records come back on ranks[r].fd.
// Returns why it could not, or "" once it runs.
std::string startRank(const LaunchOptions& options, int r, pid_t parent, pid_t& group,
                      std::vector<Rank>& ranks) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return std::string("cannot create a pipe: ") + std::strerror(errno);
  // Everything the child needs, made before fork: it only calls exec-safe functions.
  const std::string rank = std::to_string(r), recordFd = std::to_string(kRecordFd);
  // Each rank gets its share of the cores: OpenMP pools of several ranks
  // spinning on the same cores would measure contention, not training.
  // (setenv() after fork is not safe in a coordinator with threads.)
  EnvironmentBlock environment("OMP_NUM_THREADS", std::to_string(options.threadsPerWorker));
  const char* const argv[] = {"dtbench", "worker",     "--spec",      options.specFile.c_str(),
                              "--rank",  rank.c_str(), "--record-fd", recordFd.c_str(),
                              nullptr};
  const pid_t pid = fork();
  const int forkError = errno;  // before stopAll's waitpid() sets it to ECHILD
  if (pid == 0) {
    setpgid(0, group);  // the first rank founds the group; the others join it
    // A worker dies with its coordinator: no orphan keeps training, or hangs.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);  // the coordinator died before prctl took effect
    dup2(fds[1], kRecordFd);            // dup2 clears close-on-exec on the copy
    execve(options.executable.c_str(), const_cast<char* const*>(argv), environment.pointers());
    _exit(127);
  }
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    return std::string("cannot start a worker: ") + std::strerror(forkError);
  }
  if (group == 0) group = pid;
  setpgid(pid, group);  // also from the parent: no race with the child's own call
  fcntl(fds[0], F_SETFL, O_NONBLOCK);
  ranks[r].pid = pid;
  ranks[r].fd = fds[0];
  return "";
}

// Waits a moment for any rank to write, then feeds what each wrote to
// `output`; closes the pipe of a rank that closed its end.
void readRanks(std::vector<Rank>& ranks, RankOutput& output) {
  std::vector<pollfd> polls;
  for (const Rank& r : ranks) {
    if (r.fd >= 0) polls.push_back({r.fd, POLLIN, 0});
  }
  if (polls.empty()) {
    usleep(10000);  // every pipe closed; the workers are exiting
  } else {
    poll(polls.data(), polls.size(), 200);
  }
  for (size_t i = 0; i < ranks.size(); ++i) {
    Rank& r = ranks[i];
    if (r.fd < 0) continue;
    char buffer[4096];
    ssize_t n;
    while ((n = read(r.fd, buffer, sizeof(buffer))) > 0)
      output.feed(static_cast<int>(i), buffer, static_cast<size_t>(n));
    if (n == 0) {  // the worker closed its end: it is exiting
      close(r.fd);
      r.fd = -1;
    }
  }
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
    return describeExit(reaped.signalled, ranks[reaped.signalled], output.errorOf(reaped.signalled));
  }
  if (!output.firstOwnError().empty()) return withRanksThatNeverJoined(output.firstOwnError(), ranks, output);
  if (!output.firstPeerError().empty())
    return withRanksThatNeverJoined(output.firstPeerError(), ranks, output);
  return describeExit(reaped.failed, ranks[reaped.failed], output.errorOf(reaped.failed));
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
