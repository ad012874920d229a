#include "plugin/isolated_call.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <sstream>

#include "plugin/crash_report.h"

namespace dtb::core {
namespace {

using Clock = std::chrono::steady_clock;

// The child's exit code when `work` returned (its text is in the pipe); any
// other code is the plugin's own exit().
constexpr int kReturned = 0;

void writeAll(int fd, const std::string& text) {
  const char* data = text.data();
  size_t left = text.size();
  while (left > 0) {
    const ssize_t n = write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data += n;
    left -= static_cast<size_t>(n);
  }
}

[[noreturn]] void beChild(int out, const std::function<std::string()>& work) {
  // Quiet: the parent says what happened, once.
  if (const int null = open("/dev/null", O_WRONLY); null >= 0) {
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
  }
  crash::alsoReportSignalTo(out);  // what the parent shows even if a sanitizer makes the crash an exit
  std::string result;
  try {
    result = work();
  } catch (const std::exception& e) {
    result = e.what();
  } catch (...) {
    result = "unknown exception";
  }
  writeAll(out, "=" + result);  // the marker tells "returned nothing" from "never returned"
  _exit(kReturned);             // no atexit handlers, no sanitizer leak check of a forked copy
}

std::string describeDeath(int status) {
  if (WIFSIGNALED(status)) {
    const char* name = sigabbrev_np(WTERMSIG(status));
    return std::string("crashed with SIG") + (name ? name : "?");
  }
  return "called exit(" + std::to_string(WEXITSTATUS(status)) + ")";
}

std::string describeLimit(std::chrono::milliseconds limit) {
  std::ostringstream text;
  text << static_cast<double>(limit.count()) / 1000.0 << " s";
  return text.str();
}

}  // namespace

IsolatedOutcome runIsolated(const std::function<std::string()>& work, std::chrono::milliseconds limit) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return {false, "", std::string("cannot create a pipe: ") + std::strerror(errno)};
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    beChild(fds[1], work);
  }
  const int forkError = errno;
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    return {false, "", std::string("cannot start a process to try it in: ") + std::strerror(forkError)};
  }

  // The read end never blocks: a child that hangs is killed at the deadline,
  // and one that forked a process still holding the pipe is done when it
  // exits, not when that process lets go.
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  std::string received;
  const auto drain = [&] {
    char buffer[4096];
    for (;;) {
      const ssize_t n = read(fds[0], buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return n == 0;  // true: every writer closed its end
      received.append(buffer, static_cast<size_t>(n));
    }
  };
  bool timedOut = false;
  bool closed = false;  // every writer closed its end: only the exit is left to see
  pid_t done = 0;
  int status = 0;
  const auto deadline = Clock::now() + limit;
  while (done != pid) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      timedOut = true;
      break;
    }
    // Short waits: the child's exit is seen even while a process it forked
    // still holds the pipe open.
    pollfd p{fds[0], POLLIN, 0};
    poll(&p, closed ? 0 : 1, static_cast<int>(std::min<long long>(left, closed ? 10 : 100)));
    if (!closed) closed = drain();
    while ((done = waitpid(pid, &status, WNOHANG)) < 0 && errno == EINTR) {
    }
    if (done < 0) break;  // not our child any more (cannot happen; never spin)
  }
  drain();
  close(fds[0]);
  if (timedOut) {
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return {false, "", "did not finish within " + describeLimit(limit) + " (it hangs?)"};
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == kReturned && received.starts_with("=")) {
    return {true, received.substr(1), ""};
  }
  // Our crash handler's word ("#crashed with SIGSEGV") first: under a
  // sanitizer the child exits with a code instead of dying by the signal.
  if (!WIFSIGNALED(status) && received.starts_with("#")) {
    return {false, "", received.substr(1, received.find('\n') - 1)};
  }
  return {false, "", describeDeath(status)};
}

}  // namespace dtb::core
