#include "launch/local_ranks.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>

#include "launch/environment_block.h"
#include "launch/rank_environment.h"
#include "launch/remote_shell.h"

namespace dtb::core {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kRecordFd = 3;  // where a worker writes its records

// What exec runs: the program's path, found before fork (a PATH search in
// the child is not async-signal-safe), and its arguments.
struct Exec {
  std::string program;
  std::vector<std::string> words;
  std::string host;  // where the remote shell runs the worker; "" for a local rank
};

// launcher = "ssh": rank r's worker on its host through the remote shell
// (ssh in batch mode by default: a password prompt fails, it never waits),
// its records on the shell's standard output (all a remote shell carries
// back), its place in the torchrun variables the worker reads
// (rank_environment.h), its threads as a local rank's. The worker ends
// when its standard input does (--exit-with-stdin): the coordinator holds
// the other end, and a remote shell that is killed or loses its connection
// closes it, where no signal would reach the remote process.
Exec remoteWorker(const LaunchOptions& options, int r, const std::optional<SlotPlace>& placed) {
  const SlotPlace place = placed ? *placed : placeSlot(readHostfile(options.hostfile), r, options.world);
  const std::vector<std::string> shell = options.launcherArgs.empty()
                                             ? std::vector<std::string>{"ssh", "-o", "BatchMode=yes"}
                                             : options.launcherArgs;
  return {findOnPath(shell.front()),
          remoteCommand(
              shell, place.host, std::filesystem::current_path(),
              {"OMP_NUM_THREADS=" + std::to_string(options.threadsPerWorker), "RANK=" + std::to_string(r),
               "WORLD_SIZE=" + std::to_string(options.world), "LOCAL_RANK=" + std::to_string(place.localRank),
               "LOCAL_WORLD_SIZE=" + std::to_string(place.localSize)},
              {options.executable.string(), "worker", "--spec", options.specFile.string(), "--rank",
               std::to_string(r), "--record-fd", "1", "--exit-with-stdin"}),
          place.host};
}

// What a remote shell's exit code says, for a rank that reported no error,
// that the code alone would not; `started`: the rank had said where it
// runs, so the shell did reach its host. ssh exits 255 on its own failures
// and also when the remote process dies by a signal (OpenSSH's client drops
// that news); a POSIX shell exits 127 or 126 when the command is missing or
// cannot run. The shell's own message is on standard error, above the run's.
// "" where the code says nothing more.
std::string remoteShellReason(int code, bool started) {
  if (code == 255 && !started)
    return "the remote shell could not reach the host or log in; ssh in batch mode, the default, fails where "
           "it would ask for a password or to accept a host key";
  if (code == 255)
    return "ssh lost the connection, or the worker was killed by a signal on that host: ssh exits 255 for "
           "both";
  if (code == 127 && !started)
    return "the remote shell found no dtbench there: it must be at the same path on every host";
  if (code == 126 && !started) return "the remote shell could not run dtbench there";
  return "";
}

}  // namespace

std::string describeExit(int rank, const Rank& r, const std::string& error, const std::string& reportedHost) {
  // A remote rank's host as the rank named it, as the other messages and
  // rank_host do; the hostfile's name for it when it never got as far.
  const std::string who = namedRanks({rank}, r.host.empty()         ? ""
                                             : reportedHost.empty() ? r.host
                                                                    : reportedHost);
  if (WIFSIGNALED(r.status)) {
    const int sig = WTERMSIG(r.status);
    const char* name = sigabbrev_np(sig);
    // A crash handler's record says where: "crashed with SIGSEGV in strategy 'x' (...)".
    return who + " was killed by signal " + std::to_string(sig) + " (SIG" + (name ? name : "?") + ")" +
           (error.empty() ? "" : ": " + error);
  }
  const int code = WEXITSTATUS(r.status);
  std::string text = who + " exited with code " + std::to_string(code);
  // A worker that reported an error chose its code; a silent one's may be the shell's.
  const std::string reason =
      r.host.empty() || !error.empty() ? "" : remoteShellReason(code, !reportedHost.empty());
  if (!reason.empty()) text += " (" + reason + ")";
  if (!error.empty()) text += ": " + error;
  return text;
}

void stopAll(std::vector<Rank>& ranks, pid_t group) {
  // The ssh launcher's remote workers end with their standard input.
  for (Rank& r : ranks) {
    if (r.lifeline >= 0) close(r.lifeline);
    r.lifeline = -1;
  }
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

std::string startRank(const LaunchOptions& options, int r, pid_t parent, pid_t& group,
                      std::vector<Rank>& ranks, const std::optional<SlotPlace>& place) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return std::string("cannot create a pipe: ") + std::strerror(errno);
  // Everything the child needs, made before fork: it only calls exec-safe functions.
  const std::string rank = std::to_string(r), recordFd = std::to_string(kRecordFd);
  // Each rank gets its share of the cores: OpenMP pools of several ranks
  // spinning on the same cores would measure contention, not training.
  // (setenv() after fork is not safe in a coordinator with threads.)
  // An elastic run's worker on this machine keeps the local rank it was
  // placed at (elastic/local_places.h), and with it its GPU, in every world.
  std::vector<std::pair<std::string, std::string>> variables = {
      {"OMP_NUM_THREADS", std::to_string(options.threadsPerWorker)}};
  if (place && options.launcher != "ssh")
    variables.emplace_back(kLocalRankVariable, std::to_string(place->localRank));
  EnvironmentBlock environment(variables);
  Exec exec{
      options.executable.string(),
      {"dtbench", "worker", "--spec", options.specFile.string(), "--rank", rank, "--record-fd", recordFd}};
  const bool remote = options.launcher == "ssh";
  int lifeline[2] = {-1, -1};  // remote: the worker's standard input, held open here
  if (remote) {
    try {
      exec = remoteWorker(options, r, place);
    } catch (const std::exception& e) {
      close(fds[0]);
      close(fds[1]);
      return e.what();
    }
    if (pipe2(lifeline, O_CLOEXEC) != 0) {
      close(fds[0]);
      close(fds[1]);
      return std::string("cannot create a pipe: ") + std::strerror(errno);
    }
  }
  std::vector<char*> argv;
  for (std::string& word : exec.words) argv.push_back(word.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  const int forkError = errno;  // before stopAll's waitpid() sets it to ECHILD
  if (pid == 0) {
    setpgid(0, group);  // the first rank founds the group; the others join it
    // A worker dies with its coordinator: no orphan keeps training, or hangs.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);  // the coordinator died before prctl took effect
    if (remote) {                       // the remote shell carries the records on its standard output
      dup2(fds[1], STDOUT_FILENO);
      dup2(lifeline[0], STDIN_FILENO);
    } else {
      dup2(fds[1], kRecordFd);  // dup2 clears close-on-exec on the copy
    }
    execve(exec.program.c_str(), argv.data(), environment.pointers());
    _exit(127);
  }
  close(fds[1]);
  if (remote) close(lifeline[0]);
  if (pid < 0) {
    close(fds[0]);
    if (remote) close(lifeline[1]);
    return std::string("cannot start a worker: ") + std::strerror(forkError);
  }
  ranks[r].lifeline = lifeline[1];
  ranks[r].host = exec.host;
  if (group == 0) group = pid;
  setpgid(pid, group);  // also from the parent: no race with the child's own call
  fcntl(fds[0], F_SETFL, O_NONBLOCK);
  ranks[r].pid = pid;
  ranks[r].fd = fds[0];
  return "";
}

void readRanks(std::vector<Rank>& ranks, RankOutput& output) {
  std::vector<pollfd> polls;
  // A rank whose pipe ended is exiting: the kernel closes its files before
  // it can be reaped, so look again soon rather than after a quiet 200 ms
  // (a killed rank is then seen within milliseconds, not up to 0.2 s late).
  bool exiting = false;
  for (const Rank& r : ranks) {
    if (r.fd >= 0) polls.push_back({r.fd, POLLIN, 0});
    exiting = exiting || (r.fd < 0 && r.pid > 0 && !r.exited);
  }
  if (polls.empty()) {
    usleep(10000);  // every pipe closed; the workers are exiting
  } else {
    poll(polls.data(), polls.size(), exiting ? 5 : 200);
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

void drainRanks(std::vector<Rank>& ranks, RankOutput& output, std::chrono::milliseconds bound) {
  const auto until = std::chrono::steady_clock::now() + bound;
  const auto open = [&] {
    return std::any_of(ranks.begin(), ranks.end(), [](const Rank& r) { return r.fd >= 0; });
  };
  while (open() && std::chrono::steady_clock::now() < until) readRanks(ranks, output);
}

// The state letter of /proc/<pid>/stat: 'T' stopped (SIGSTOP), 't' traced.
char processState(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() ? stat[close + 2] : '?';
}

}  // namespace dtb::core
