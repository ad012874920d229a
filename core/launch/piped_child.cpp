#include "launch/piped_child.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace dtb::core {

std::string startPipedChild(const std::vector<std::string>& command, const PipedChildOptions& options,
                            PipedChild& child) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0) return std::string("cannot create a pipe: ") + std::strerror(errno);
  if (pipe2(err, O_CLOEXEC) != 0) {
    const int error = errno;
    close(out[0]);
    close(out[1]);
    return std::string("cannot create a pipe: ") + std::strerror(error);
  }
  // Everything the child needs, made before fork: it only calls exec-safe functions.
  std::vector<char*> argv;
  for (const std::string& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  const std::string cannot = "dtbench: cannot start " + command[0] + ": ";
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, options.deathSignal);
    if (getppid() != parent) _exit(1);  // this process died before prctl took effect
    if (options.nullInput) {
      const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);  // dup2's copy stays open
      if (null >= 0) dup2(null, STDIN_FILENO);
    }
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    execvp(argv[0], argv.data());
    const char* why = std::strerror(errno);
    (void)!write(STDERR_FILENO, cannot.data(), cannot.size());
    (void)!write(STDERR_FILENO, why, std::strlen(why));
    (void)!write(STDERR_FILENO, "\n", 1);
    _exit(127);
  }
  const int forkError = errno;
  close(out[1]);
  close(err[1]);
  if (pid < 0) {
    close(out[0]);
    close(err[0]);
    return "cannot start " + command[0] + ": " + std::strerror(forkError);
  }
  setpgid(pid, pid);  // also from here: no race with the child's own call
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  fcntl(err[0], F_SETFL, O_NONBLOCK);
  child = {pid, out[0], err[0]};
  return "";
}

}  // namespace dtb::core
