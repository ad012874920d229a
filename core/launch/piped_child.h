// A child process whose standard output and error come back as pipes: what
// the job launcher starts mpirun or srun as, and the elastic launcher its
// host discovery script (elastic/discovery_script.h). The child leads a
// process group of its own, so that one signal reaches whatever it starts,
// and dies with this process.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace dtb::core {

struct PipedChild {
  pid_t pid = -1;
  int out = -1, err = -1;  // read ends, non-blocking
};

struct PipedChildOptions {
  int deathSignal = 9;     // what the child gets when this process dies (SIGKILL)
  bool nullInput = false;  // its standard input /dev/null, else this process's
};

// Starts `command` (its first word looked up on PATH unless it names a
// path). A child that cannot exec writes "dtbench: cannot start ..." on its
// standard error and exits 127. Returns why it could not be started, or ""
// once `child` holds it.
std::string startPipedChild(const std::vector<std::string>& command, const PipedChildOptions& options,
                            PipedChild& child);

}  // namespace dtb::core
