#include "run/launch.h"

#include "run/job_launcher.h"
#include "run/local_launcher.h"

namespace dtb::core {

LaunchOutcome launch(const LaunchOptions& options, const RecordHandler& onRecord) {
  if (options.launcher == "local") return launchLocal(options, onRecord);
  return launchJob(options, onRecord);
}

std::string resolveLauncher(const std::string& launcher, const std::string& backend) {
  if (launcher != "auto" && !launcher.empty()) return launcher;
  return backend == "mpi" ? "mpirun" : "local";
}

}  // namespace dtb::core
