// The coordinator's side of `dtbench comm`: one run per backend, each with
// `world` worker processes started like a training run's (local, mpirun or
// srun), results stored in the collective and bandwidth_reference tables of
// one experiment and printed as a table while they arrive.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "run/run_lifecycle.h"
#include "sweep/sweep_spec.h"

namespace dtb::core {

struct SweepOptions {
  RunContext context;
  std::string name = "comm";  // the experiment's name
  std::string source;         // the matrix file it came from, if any
  std::vector<std::string> backends = {"gloo"};
  int world = 2;
  std::string launcher = "auto";
  std::string hostfile;
  std::string launcherArgs;
  std::string interface;  // the network interface ranks talk over (the run key)
  std::string network;    // the emulated network's profile (the run key), "" for the hosts' own
  // "redis://HOST:PORT" for ranks on hosts that share no directory, or ""
  // for the file store (the matrix key rendezvous_store).
  std::string rendezvousStore;
  double timeoutS = 60;
  SweepSpec sweep;
  // A backend's parameters, from the file's [backend.NAME] tables (checked
  // against the plugin's declarations when it is loaded).
  std::map<std::string, toml::table> backendParams;
};

// Returns 0 when every backend's sweep ran with no wrong element, 1 otherwise,
// 130 when stopped with Ctrl-C.
int runSweeps(const SweepOptions& options);

}  // namespace dtb::core
