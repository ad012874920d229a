#include "launch/scratch_reaper.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "log/log.h"

extern char** environ;

namespace dtb::core {

ScratchReaper::ScratchReaper(const std::filesystem::path& directory) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    log(DTB_LOG_WARN, "run", std::string("no scratch reaper (pipe: ") + std::strerror(errno) + ")");
    return;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO);  // the copy loses close-on-exec
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // Its own process group: Ctrl-C at the terminal stops the run, not the reaper.
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  // `read` returns at end of file: when the last holder of the write end is gone.
  const std::string path = directory.string();
  const char* argv[] = {"sh", "-c", "read -r _; rm -rf -- \"$0\"", path.c_str(), nullptr};
  const int error = posix_spawn(&pid_, "/bin/sh", &actions, &attributes, const_cast<char**>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(fds[0]);
  if (error != 0) {
    pid_ = -1;
    close(fds[1]);
    log(DTB_LOG_WARN, "run", std::string("no scratch reaper (/bin/sh: ") + std::strerror(error) + ")");
    return;
  }
  pipe_ = fds[1];  // close-on-exec: no worker holds it open
}

ScratchReaper::~ScratchReaper() {
  if (pipe_ >= 0) close(pipe_);
  if (pid_ > 0) {
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

}  // namespace dtb::core
