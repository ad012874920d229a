#include "run/job_launcher.h"

#include <algorithm>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "run/rank_output.h"

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

std::vector<std::string> jobCommand(const LaunchOptions& options, bool runningAsRoot) {
  std::vector<std::string> command;
  const std::string threads = std::to_string(options.threadsPerWorker);
  if (options.launcher == "srun") {
    command = {"srun", "--ntasks=" + std::to_string(options.world), "--label", "--kill-on-bad-exit=1",
               "--export=ALL,OMP_NUM_THREADS=" + threads};
  } else {
    command = {"mpirun", "-np", std::to_string(options.world), "--tag-output", "--oversubscribe", "--bind-to",
               "none", "-x", "OMP_NUM_THREADS=" + threads};
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
    const auto userSays = [&](std::string_view word) {
      return std::any_of(options.launcherArgs.begin(), options.launcherArgs.end(),
                         [&](const std::string& arg) { return arg.find(word) != std::string::npos; });
    };
    const bool oneHost = options.hostfile.empty() && !userSays("host") && !userSays("-H");
    if (oneHost && !userSays("btl") && !userSays("pml") && !userSays("mtl")) {
      command.insert(command.end(), {"--mca", "pml", "ob1", "--mca", "btl", "self,vader"});
    }
    if (oneHost && !userSays("if_include") && !userSays("if_exclude")) {
      command.insert(command.end(), {"--mca", "oob_tcp_if_include", "lo"});
    }
  }
  command.insert(command.end(), options.launcherArgs.begin(), options.launcherArgs.end());
  for (const std::string& arg : {options.executable.string(), std::string("worker"), std::string("--spec"),
                                 options.specFile.string(), std::string("--record-fd"), std::string("1")}) {
    command.push_back(arg);
  }
  return command;
}

std::optional<std::pair<int, std::string>> splitTaggedLine(const std::string& line) {
  size_t at = 0;
  if (line.rfind('[', 0) == 0) {  // mpirun: "[job,rank]<stdout>:text"
    const size_t comma = line.find(',');
    const size_t close = line.find(']');
    static const std::string kStdout = "]<stdout>:";
    if (comma == std::string::npos || close == std::string::npos || comma > close ||
        line.compare(close, kStdout.size(), kStdout) != 0) {
      return std::nullopt;
    }
    const auto rank = digitsAt(line, comma + 1);
    if (!rank || rank->second != close) return std::nullopt;
    return std::make_pair(rank->first, line.substr(close + kStdout.size()));
  }
  while (at < line.size() && line[at] == ' ') ++at;  // srun: "  3: text"
  const auto rank = digitsAt(line, at);
  if (!rank || line.compare(rank->second, 2, ": ") != 0) return std::nullopt;
  return std::make_pair(rank->first, line.substr(rank->second + 2));
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
    const std::string host = launcherErrors.substr(hostStart, launcherErrors.find(' ', hostStart) - hostStart);
    if (rank && number) {
      const char* name = sigabbrev_np(number->first);
      return "rank " + std::to_string(rank->first) + " was killed by signal " + std::to_string(number->first) +
             " (SIG" + (name ? name : "?") + ") on " + host;
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
        const std::string reason = launcherErrors.substr(reasonStart, launcherErrors.find('\n', reasonStart) - reasonStart);
        return "rank " + std::to_string(rank->first) + " on " + launcherErrors.substr(hostStart, task - hostStart) +
               ": " + reason;
      }
    }
  }
  return "";
}

LaunchOutcome launchJob(const LaunchOptions& options, const RecordHandler& onRecord) {
  const std::vector<std::string> command = jobCommand(options, geteuid() == 0);
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
    return {LaunchOutcome::Status::kFailed, std::string("cannot create a pipe: ") + std::strerror(errno)};
  std::vector<char*> argv;
  for (const std::string& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGTERM);  // mpirun takes its job down with it
    if (getppid() != parent) _exit(1);
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    execvp(argv[0], argv.data());
    const std::string message = "dtbench: cannot start " + command[0] + ": " + std::strerror(errno) + "\n";
    (void)!write(STDERR_FILENO, message.data(), message.size());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  if (pid < 0) {
    close(out[0]);
    close(err[0]);
    return {LaunchOutcome::Status::kFailed, std::string("cannot start ") + command[0] + ": " + std::strerror(errno)};
  }
  setpgid(pid, pid);
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  fcntl(err[0], F_SETFL, O_NONBLOCK);

  RankOutput output(options.world, onRecord);
  std::string stdoutPending, stderrPending, launcherErrors;
  LaunchOutcome outcome;
  int status = 0;
  bool exited = false;
  std::optional<Clock::time_point> settleUntil;  // after a rank's error, until the launcher ends the job
  int fds[2] = {out[0], err[0]};
  for (;;) {
    pollfd polls[2];
    int n = 0;
    for (int fd : fds) {
      if (fd >= 0) polls[n++] = {fd, POLLIN, 0};
    }
    if (n > 0) {
      poll(polls, static_cast<nfds_t>(n), 200);
    } else {
      usleep(10000);
    }
    char buffer[4096];
    for (int k = 0; k < 2; ++k) {
      if (fds[k] < 0) continue;
      std::string& pending = k == 0 ? stdoutPending : stderrPending;
      ssize_t got;
      while ((got = read(fds[k], buffer, sizeof(buffer))) > 0) pending.append(buffer, static_cast<size_t>(got));
      if (got == 0) {
        close(fds[k]);
        fds[k] = -1;
      }
      size_t end;
      while ((end = pending.find('\n')) != std::string::npos) {
        const std::string line = pending.substr(0, end);
        pending.erase(0, end + 1);
        if (k == 1) {  // the workers' logs and the launcher's reports
          std::fprintf(stderr, "%s\n", line.c_str());
          if (launcherErrors.size() < kKeptErrorBytes) launcherErrors += line + "\n";
          continue;
        }
        const auto tagged = splitTaggedLine(line);
        if (tagged && tagged->first >= 0 && tagged->first < options.world) {
          output.line(tagged->first, tagged->second);
        }
      }
    }
    if (!exited && waitpid(pid, &status, WNOHANG) == pid) exited = true;
    const bool failedRank = !output.firstOwnError().empty() || !output.firstPeerError().empty();
    if (failedRank && !settleUntil) settleUntil = Clock::now() + std::chrono::seconds(5);
    if (exited && fds[0] < 0 && fds[1] < 0) break;
    if (!exited && settleUntil && Clock::now() > *settleUntil) {
      stopJob(pid, status);  // a rank failed and the launcher did not end the job
      exited = true;
    }
    if (options.interrupted && options.interrupted->load()) {
      if (!exited) stopJob(pid, status);
      outcome = {LaunchOutcome::Status::kInterrupted, "stopped by the user (Ctrl-C)"};
      break;
    }
    const double silent = output.secondsSilent();
    if (!exited && silent > options.silenceLimitS) {
      stopJob(pid, status);
      outcome = {LaunchOutcome::Status::kFailed, "no rank reported anything for " +
                                                     std::to_string(static_cast<int>(silent)) +
                                                     " s (a hang?); " + command[0] + " and its ranks were stopped"};
      break;
    }
    if (exited && (fds[0] < 0 || fds[1] < 0) && silent > 5) break;  // a rank holding a pipe open after mpirun left
  }
  for (int fd : fds) {
    if (fd >= 0) close(fd);
  }
  if (outcome.status != LaunchOutcome::Status::kOk) return outcome;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && output.firstOwnError().empty() &&
      output.firstPeerError().empty()) {
    return outcome;
  }
  // The cause, most telling first: the launcher's report of a rank that died,
  // a rank's own error, a failed collective, the launcher's exit status.
  outcome.status = LaunchOutcome::Status::kFailed;
  const std::string death = deathReport(launcherErrors);
  if (!death.empty()) {
    outcome.error = death;
    // A crash handler's record says where (a plugin's code): keep it.
    if (const std::string& own = output.firstOwnError(); own.find(": crashed with SIG") != std::string::npos) {
      outcome.error += " (" + own + ")";
    }
  } else if (!output.firstOwnError().empty()) {
    outcome.error = output.firstOwnError();
  } else if (!output.firstPeerError().empty()) {
    outcome.error = output.firstPeerError();
  } else {
    outcome.error = command[0] + " " + exitText(status);
    const std::string said = lastMessage(launcherErrors);
    if (!said.empty()) outcome.error += ": " + said;
  }
  return outcome;
}

}  // namespace dtb::core
