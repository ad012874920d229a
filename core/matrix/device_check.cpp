#include "matrix/device_check.h"

#include "plugin/backend_memory.h"

namespace dtb::core {
namespace {

std::string cellName(const Cell& cell) { return "(cell " + std::to_string(cell.index) + ")"; }

// The local launcher starts every rank on this machine; mpirun, srun and ssh
// start them where their GPUs are, which only the ranks can see.
bool ranksStartHere(const Cell& cell) {
  const std::string launcher = cell.text("launcher");
  return launcher == "local" || (launcher == "auto" && cell.text("backend") != "mpi");
}

}  // namespace

std::optional<DeviceProblem> deviceProblem(const Cell& cell, const dtb_backend_plugin_v1_t* backend,
                                           const LocalGpus& gpus) {
  const std::string backendName = cell.text("backend");
  if (cell.text("device") != "cuda") {
    if (backend && movesGpuMemoryOnly(*backend)) {
      return DeviceProblem{"backend", "backend '" + backendName + "' " + cellName(cell) +
                                          " moves GPU memory only, and this cell trains on the CPU (device = "
                                          "\"cpu\"): set device = \"cuda\" to train on GPUs, use gloo or mpi "
                                          "on the CPU, or `dtbench comm --backend " +
                                          backendName + "` to measure its collectives"};
    }
    return std::nullopt;
  }
  const std::string where = "device = \"cuda\" " + cellName(cell);
  // Over a backend that moves host memory only, the host stages GPU tensors
  // through pinned memory (gpu_staging.h), and ranks may share a GPU.
  const bool nccl = !backend || (backend->capabilities & DTB_BACKEND_CAP_CUDA_MEMORY);
  // Checkpoints and elastic commits copy a GPU's parameters and optimizer
  // state to the host and back. Over Gloo (staging; MPI cannot rebuild its
  // world at all) the communicator carries whatever GPU the model is on, and
  // a worker keeps its GPU in every world; NCCL joins the GPU of the rank's
  // local rank, which a survivor renumbered in a smaller world may not be
  // its model's, so elastic worlds over NCCL wait for that to be handled.
  if (cell.text("recovery") == "elastic" && nccl) {
    return DeviceProblem{"recovery", where + ": recovery = \"elastic\" over " + backendName +
                                         " does not run on GPUs yet (a rank renumbered in a new world would "
                                         "join it on another GPU than its model's); over gloo it does "
                                         "(GPU tensors staged through pinned memory), and recovery = "
                                         "\"restart\" does over any backend"};
  }
  if (!ranksStartHere(cell)) return std::nullopt;
  if (gpus.count == 0)
    return DeviceProblem{"device", where + ": no GPU is usable here: " + gpus.whyNone, true};
  const int64_t world = cell.integer("world_size");
  if (nccl && world > gpus.count) {
    return DeviceProblem{"world_size",
                         where + ": world_size " + std::to_string(world) +
                             " needs a GPU per rank (NCCL puts one rank on each), and " +
                             std::to_string(gpus.count) + " are visible here",
                         true};
  }
  return std::nullopt;
}

}  // namespace dtb::core
