#include "launch/job_launcher.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "launch/piped_child.h"
#include "launch/rank_output.h"
#include "launch/scratch_reaper.h"

namespace dtb::core {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kKeptErrorBytes = 64 * 1024;  // of the launcher's stderr, for the report

void stopJob(pid_t pid, int& status) {
  kill(-pid, SIGTERM);  // mpirun passes it on to every rank, on every host
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while (waitpid(pid, &status, WNOHANG) != pid) {
    if (Clock::now() > deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      return;
    }
    usleep(10000);
  }
}

// The decimal number starting at `at`, and where it ends; nullopt when none.
std::optional<std::pair<int, size_t>> digitsAt(const std::string& text, size_t at) {
  size_t end = at;
  while (end < text.size() && end - at < 9 && text[end] >= '0' && text[end] <= '9') ++end;
  if (end == at) return std::nullopt;
  return std::make_pair(std::stoi(text.substr(at, end - at)), end);
}

std::string exitText(int status) {
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "exited with code " + std::to_string(WEXITSTATUS(status));
}

// The launcher's last line that says something (not a rule of dashes).
std::string lastMessage(const std::string& text) {
  std::string last;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(begin, end - begin);
    if (line.find_first_not_of("- \t") != std::string::npos) last = line;
    begin = end + 1;
  }
  return last;
}

}  // namespace

bool launcherArgsSay(const std::vector<std::string>& launcherArgs, std::string_view word) {
  return std::any_of(launcherArgs.begin(), launcherArgs.end(),
                     [&](const std::string& arg) { return arg.find(word) != std::string::npos; });
}

bool mpirunOnOneHost(const std::string& hostfile, const std::vector<std::string>& launcherArgs) {
  return hostfile.empty() && !launcherArgsSay(launcherArgs, "host") && !launcherArgsSay(launcherArgs, "-H");
}

std::vector<std::string> jobCommand(const LaunchOptions& options, bool runningAsRoot) {
  std::vector<std::string> command;
  const std::string threads = std::to_string(options.threadsPerWorker);
  if (options.launcher == "srun") {
    command = {"srun", "--ntasks=" + std::to_string(options.world), "--label", "--kill-on-bad-exit=1",
               "--export=ALL,OMP_NUM_THREADS=" + threads};
  } else {
    command = {"mpirun", "-np", std::to_string(options.world), "--tag-output", "--oversubscribe", "--bind-to",
               "none",   "-x",  "OMP_NUM_THREADS=" + threads};
    if (runningAsRoot) command.push_back("--allow-run-as-root");
    if (!options.hostfile.empty()) {
      command.push_back("--hostfile");
      command.push_back(options.hostfile);
    }
    // On one host the ranks need no network, yet Open MPI's TCP and
    // libfabric (ofi) transports listen on the machine's interfaces: the
    // ranks are given shared memory only (ob1 over self and vader), and the
    // out-of-band channel talks over loopback. (mpirun's own out-of-band
    // listener binds every interface in Open MPI 4.1 whatever the options:
    // docs/threat-model.md.) A user who names hosts, transports or
    // interfaces decides.
    const auto userSays = [&](std::string_view word) { return launcherArgsSay(options.launcherArgs, word); };
    const bool oneHost = mpirunOnOneHost(options.hostfile, options.launcherArgs);
    if (oneHost && !userSays("btl") && !userSays("pml") && !userSays("mtl")) {
      command.insert(command.end(), {"--mca", "pml", "ob1", "--mca", "btl", "self,vader"});
    }
    // The interface the cell names carries MPI's TCP traffic and its
    // out-of-band channel, as NCCL_SOCKET_IFNAME does NCCL's.
    const bool userPicksInterfaces = userSays("if_include") || userSays("if_exclude");
    if (!options.interface.empty() && !userPicksInterfaces) {
      command.insert(command.end(), {"--mca", "btl_tcp_if_include", options.interface, "--mca",
                                     "oob_tcp_if_include", options.interface});
    } else if (oneHost && !userPicksInterfaces) {
      command.insert(command.end(), {"--mca", "oob_tcp_if_include", "lo"});
    }
    // Open MPI's own scratch goes where the run's is reaped: its session
    // directory (ompi.HOST.UID/pid.N/: segments and a FIFO, left behind when
    // mpirun is killed) under the run directory, its shared-memory segments
    // (/dev/shm/vader_segment.*, left too) in a directory of their own.
    // Only on one host (other hosts' daemons may lack these paths), and
    // only where the user names neither (launcher_args or OMPI_MCA_*).
    // Open MPI 4's parameter names; Open MPI 5 (PRRTE) would ignore the first.
    if (oneHost && !userSays("tmpdir") && std::getenv("OMPI_MCA_orte_tmpdir_base") == nullptr) {
      command.insert(command.end(), {"--mca", "orte_tmpdir_base", options.specFile.parent_path().string()});
    }
    if (oneHost && !options.sharedMemoryDir.empty() && !userSays("backing_directory") &&
        std::getenv("OMPI_MCA_btl_vader_backing_directory") == nullptr) {
      command.insert(command.end(),
                     {"--mca", "btl_vader_backing_directory", options.sharedMemoryDir.string()});
    }
  }
  command.insert(command.end(), options.launcherArgs.begin(), options.launcherArgs.end());
  for (const std::string& arg : {options.executable.string(), std::string("worker"), std::string("--spec"),
                                 options.specFile.string(), std::string("--record-fd"), std::string("1")}) {
    command.push_back(arg);
  }
  return command;
}

std::string deathReport(const std::string& launcherErrors) {
  // Open MPI: "mpirun noticed that process rank 1 with PID 123 on node vm exited on signal 9 (Killed)."
  const size_t process = launcherErrors.find("process rank ");
  const size_t node = launcherErrors.find(" on node ", process == std::string::npos ? 0 : process);
  const size_t signal = launcherErrors.find("exited on signal ", node == std::string::npos ? 0 : node);
  if (process != std::string::npos && node != std::string::npos && signal != std::string::npos) {
    const auto rank = digitsAt(launcherErrors, process + 13);
    const auto number = digitsAt(launcherErrors, signal + 17);
    const size_t hostStart = node + 9;
    const std::string host =
        launcherErrors.substr(hostStart, launcherErrors.find(' ', hostStart) - hostStart);
    if (rank && number) {
      const char* name = sigabbrev_np(number->first);
      return "rank " + std::to_string(rank->first) + " was killed by signal " +
             std::to_string(number->first) + " (SIG" + (name ? name : "?") + ") on " + host;
    }
  }
  // Slurm: "srun: error: node1: task 1: Killed"
  const size_t error = launcherErrors.find("srun: error: ");
  if (error != std::string::npos) {
    const size_t hostStart = error + 13;
    const size_t task = launcherErrors.find(": task ", hostStart);
    if (task != std::string::npos) {
      const auto rank = digitsAt(launcherErrors, task + 7);
      if (rank && launcherErrors.compare(rank->second, 2, ": ") == 0) {
        const size_t reasonStart = rank->second + 2;
        const std::string reason =
            launcherErrors.substr(reasonStart, launcherErrors.find('\n', reasonStart) - reasonStart);
        return "rank " + std::to_string(rank->first) + " on " +
               launcherErrors.substr(hostStart, task - hostStart) + ": " + reason;
      }
    }
  }
  return "";
}

namespace {

// The launcher's process: its stdout (the ranks' tagged records) and stderr
// (the workers' logs and the launcher's own reports) as non-blocking pipes.
struct Job {
  pid_t pid = -1;
  int fds[2] = {-1, -1};  // stdout, stderr; -1 once closed
};

// Starts `command` in a process group of its own; mpirun takes its job
// down with it when it gets SIGTERM. Returns why it could not, or "" once
// it runs.
std::string startJob(const std::vector<std::string>& command, Job& job) {
  PipedChild child;
  if (std::string error = startPipedChild(command, {SIGTERM, false}, child); !error.empty()) return error;
  job = {child.pid, {child.out, child.err}};
  return "";
}

// What the launcher's two streams carried so far: record lines go to the
// ranks' output, stderr lines are echoed and the first of them kept for the
// failure report.
class JobStreams {
 public:
  JobStreams(int world, const RecordHandler& onRecord) : tagged_(world), output_(world, onRecord) {}

  const RankOutput& output() const { return output_; }
  // What ranks began to write and never ended with a newline (cut off as
  // the job ended): said in the log, as the ranks' stray output is.
  void reportUnfinishedLines() const {
    for (const auto& [rank, text] : tagged_.unfinished())
      std::fprintf(stderr, "rank %d's last output had no end: %.200s\n", rank, text.c_str());
  }
  const std::string& launcherErrors() const { return launcherErrors_; }

  // Waits a moment for either stream, then takes in what both hold.
  void read(Job& job) {
    pollfd polls[2];
    int n = 0;
    for (int fd : job.fds) {
      if (fd >= 0) polls[n++] = {fd, POLLIN, 0};
    }
    if (n > 0) {
      poll(polls, static_cast<nfds_t>(n), 200);
    } else {
      usleep(10000);
    }
    for (int k = 0; k < 2; ++k) {
      if (job.fds[k] >= 0) drain(job.fds[k], k == 1);
    }
  }

 private:
  // Reads `fd` dry, closing (and marking -1) a stream that ended, and takes
  // in its complete lines.
  void drain(int& fd, bool isStderr) {
    std::string& pending = isStderr ? stderrPending_ : stdoutPending_;
    char buffer[4096];
    ssize_t got;
    while ((got = ::read(fd, buffer, sizeof(buffer))) > 0) pending.append(buffer, static_cast<size_t>(got));
    if (got == 0) {
      close(fd);
      fd = -1;
    }
    size_t end;
    while ((end = pending.find('\n')) != std::string::npos) {
      const std::string line = pending.substr(0, end);
      pending.erase(0, end + 1);
      if (isStderr) {
        errorLine(line);
      } else {
        recordLine(line);
      }
    }
  }

  // The workers' logs and the launcher's reports.
  void errorLine(const std::string& line) {
    std::fprintf(stderr, "%s\n", line.c_str());
    if (launcherErrors_.size() < kKeptErrorBytes) launcherErrors_ += line + "\n";
  }

  void recordLine(const std::string& line) {
    for (const auto& [rank, text] : tagged_.take(line)) output_.line(rank, text);
  }

  TaggedLines tagged_;  // the ranks' lines, joined from mpirun's chunks
  RankOutput output_;
  std::string stdoutPending_, stderrPending_, launcherErrors_;
};

// Reads the job's output until it ends: the launcher gone and both streams
// closed, a Ctrl-C, silence past the limit, or a rank's error the launcher
// did not end the job for. Leaves the launcher's exit status in `status`.
LaunchOutcome watchJob(const LaunchOptions& options, const std::string& program, Job& job,
                       JobStreams& streams, int& status, std::chrono::system_clock::time_point& endedAt) {
  bool exited = false;
  Clock::time_point exitedAt;
  std::optional<Clock::time_point> settleUntil;  // after a rank's error, until the launcher ends the job
  for (;;) {
    streams.read(job);
    const RankOutput& output = streams.output();
    if (!exited && waitpid(job.pid, &status, WNOHANG) == job.pid) {
      exited = true;
      exitedAt = Clock::now();
      if (!settleUntil) endedAt = std::chrono::system_clock::now();
    }
    const bool failedRank = !output.firstOwnError().empty() || !output.firstPeerError().empty();
    if (failedRank && !settleUntil) {
      settleUntil = Clock::now() + std::chrono::seconds(5);
      endedAt = std::chrono::system_clock::now();
    }
    if (exited && job.fds[0] < 0 && job.fds[1] < 0) return {};
    if (!exited && settleUntil && Clock::now() > *settleUntil) {
      stopJob(job.pid, status);  // a rank failed and the launcher did not end the job
      exited = true;
      exitedAt = Clock::now();
    }
    if (options.interrupted && options.interrupted->load()) {
      if (!exited) stopJob(job.pid, status);
      return {LaunchOutcome::Status::kInterrupted, "stopped by the user (Ctrl-C)"};
    }
    const double silent = output.secondsSilent();
    if (!exited && silent > options.silenceLimitS) {
      stopJob(job.pid, status);
      return {LaunchOutcome::Status::kFailed, "no rank reported anything for " +
                                                  std::to_string(static_cast<int>(silent)) +
                                                  " s (a hang?); " + program + " and its ranks were stopped"};
    }
    // The launcher left, yet something holds its pipes: a rank, or the agent
    // (ssh) of a daemon on a host that is no longer reachable, which lives
    // on in its own process group. What the launcher wrote before it left is
    // read for 5 s more; then the ranks have said what they will.
    if (exited && silent > 5 && Clock::now() - exitedAt > std::chrono::seconds(5)) return {};
  }
}

// Why a job that ended by itself failed, or "" when it did not. The cause,
// most telling first: the launcher's report of a rank that died, a rank's own
// error, a failed collective, the launcher's exit status.
std::string jobFailure(const std::string& program, int status, const JobStreams& streams) {
  const RankOutput& output = streams.output();
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && output.firstOwnError().empty() &&
      output.firstPeerError().empty()) {
    // A clean exit counts only with every rank's end reported: a launcher
    // that started nothing (a stand-in that prints its arguments, a wrapper
    // that forgot to exec) also exits 0.
    const std::string silent = output.silentRanks();
    if (silent.empty()) return "";
    const std::string said = lastMessage(streams.launcherErrors());
    if (output.ranksHeardFrom() == 0) {
      return "no rank reported: " + program + " exited 0 without starting a dtbench worker that spoke" +
             (said.empty() ? "" : " (it said: " + said + ")");
    }
    return silent + " ended without reporting their end, though " + program + " exited 0" +
           (said.empty() ? "" : " (it said: " + said + ")");
  }
  std::string death = deathReport(streams.launcherErrors());
  if (!death.empty()) {
    // A crash handler's record says where (a plugin's code): keep it.
    if (const std::string& own = output.firstOwnError();
        own.find(": crashed with SIG") != std::string::npos) {
      return death + " (" + own + ")";
    }
    return death;
  }
  if (!output.firstOwnError().empty()) return output.firstOwnError();
  if (!output.firstPeerError().empty()) {
    // Ranks on another host are not our children: those that said nothing
    // are named by host, as the local launcher names a hung rank.
    const std::string silent = output.silentRanks();
    if (silent.empty()) return output.firstPeerError();
    return silent + " said nothing before the job ended (hung, or unreachable?); " + output.firstPeerError();
  }
  std::string error = program + " " + exitText(status);
  const std::string said = lastMessage(streams.launcherErrors());
  if (!said.empty()) error += ": " + said;
  return error;
}

// A private directory in /dev/shm (tmpfs: shared memory as fast as Open
// MPI's default place there), or "" where none can be made.
std::filesystem::path sharedMemoryDirectory() {
  std::string pattern = "/dev/shm/dtbench-mpi-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) return {};
  return pattern;
}

}  // namespace

LaunchOutcome launchJob(const LaunchOptions& given, const RecordHandler& onRecord) {
  LaunchOptions options = given;
  std::optional<ScratchReaper> sharedMemoryReaper;  // removes it even if this process is killed
  if (options.launcher == "mpirun" && mpirunOnOneHost(options.hostfile, options.launcherArgs)) {
    options.sharedMemoryDir = sharedMemoryDirectory();
    if (!options.sharedMemoryDir.empty()) sharedMemoryReaper.emplace(options.sharedMemoryDir);
  }
  const std::vector<std::string> command = jobCommand(options, geteuid() == 0);
  Job job;
  if (std::string error = startJob(command, job); !error.empty())
    return {LaunchOutcome::Status::kFailed, error};
  JobStreams streams(options.world, onRecord);
  int status = 0;
  std::chrono::system_clock::time_point endedAt = std::chrono::system_clock::now();
  LaunchOutcome outcome = watchJob(options, command[0], job, streams, status, endedAt);
  streams.reportUnfinishedLines();
  for (int fd : job.fds) {
    if (fd >= 0) close(fd);
  }
  if (outcome.status != LaunchOutcome::Status::kOk) return outcome;
  if (std::string error = jobFailure(command[0], status, streams); !error.empty()) {
    outcome = {LaunchOutcome::Status::kFailed, error};
    outcome.failedAt = endedAt;  // a rank's error, or the job's end
  }
  return outcome;
}

}  // namespace dtb::core
