// A run's scratch directory (its spec, the backends' rendezvous keys) is
// removed when the run ends — and also when its coordinator is killed
// before it could remove it: a small process waits on a pipe that only the
// coordinator holds open, and removes the directory once the pipe closes,
// whichever way the coordinator went. (Its workers die with it:
// PR_SET_PDEATHSIG.)
#pragma once

#include <sys/types.h>

#include <filesystem>

namespace dtb::core {

class ScratchReaper {
 public:
  explicit ScratchReaper(const std::filesystem::path& directory);
  ~ScratchReaper();  // the coordinator's own end: the reaper removes what is left, and is reaped
  ScratchReaper(const ScratchReaper&) = delete;
  ScratchReaper& operator=(const ScratchReaper&) = delete;

 private:
  pid_t pid_ = -1;
  int pipe_ = -1;  // write end; never written, only closed
};

}  // namespace dtb::core
