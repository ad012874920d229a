#include <optional>

#include "cuda/cuda_probe.h"
#include "matrix/cell_checks.h"
#include "matrix/device_check.h"
#include "matrix/run_schema.h"

namespace dtb::core {
namespace {

// An emulated network shapes the links between hosts; a cell whose ranks
// all run here (the local launcher) sends nothing over it. Allowed (its
// store says which network was set), but said once.
void warnNetworksOnOneHost(const CellChecks& c) {
  for (const Cell& cell : c.cells) {
    const std::string network = cell.text("network");
    if (network.empty() || network == "none") continue;
    if (resolveLauncher(cell.text("launcher"), cell.text("backend")) != "local") continue;
    c.warn("network",
           "cell " + std::to_string(cell.index) + " sets network = \"" + network +
               "\" but runs every rank on this host (launcher local): the emulated network shapes the links "
               "between hosts, and none of its traffic crosses one (launcher mpirun or ssh with a hostfile "
               "does)");
    return;
  }
}

// The ssh launcher starts ranks on the hostfile's hosts: without one it
// has nowhere to start them.
void checkSshLaunches(const CellChecks& c) {
  for (const Cell& cell : c.cells) {
    if (cell.text("launcher") != "ssh" || !cell.text("hostfile").empty()) continue;
    if (!cell.text("host_discovery").empty()) continue;  // an elastic run's hosts come from its script
    c.fail("launcher",
           "launcher = \"ssh\" (cell " + std::to_string(cell.index) +
               ") starts ranks on the hosts of a hostfile: set hostfile (Open MPI's format, \"HOST slots=N\" "
               "a line), or host_discovery for an elastic run");
    return;
  }
}

// Where each cell trains (device_check.h): the first problem, at its key.
// The GPUs are counted only when a cell wants one (CUDA is never
// initialised otherwise).
void checkDevices(const CellChecks& c) {
  std::optional<LocalGpus> gpus;
  bool warnedOfThisMachine = false;
  for (const Cell& cell : c.cells) {
    if (cell.text("device") == "cuda" && !gpus) {
      const CudaProbe probe = probeCuda();
      gpus = LocalGpus{static_cast<int>(probe.devices.size()),
                       probe.problem.empty() ? describe(probe) : probe.problem};
    }
    const auto found = c.plugins.find("backend/" + cell.text("backend"));
    const dtb_backend_plugin_v1_t* backend =
        found == c.plugins.end() ? nullptr : &found->second->descriptor<dtb_backend_plugin_v1_t>();
    const auto problem = deviceProblem(cell, backend, gpus.value_or(LocalGpus{}));
    if (!problem) continue;
    const SourceLocation where = c.where(problem->key);
    if (problem->aboutThisMachine && c.scope == PlanScope::kCheckOnly) {
      // Once: every GPU cell would say the same of this machine.
      if (!warnedOfThisMachine)
        c.warnings.push_back({where, problem->message + " (`dtbench run` refuses it on this machine)", true});
      warnedOfThisMachine = true;
      continue;
    }
    c.problems.push_back({where, problem->message});
    return;
  }
}

}  // namespace

void checkPlacement(const CellChecks& checks) {
  checkDevices(checks);
  checkSshLaunches(checks);
  warnNetworksOnOneHost(checks);
}

}  // namespace dtb::core
