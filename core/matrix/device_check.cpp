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
  if (!ranksStartHere(cell)) return std::nullopt;
  // An elastic world over NCCL keeps a GPU per worker (elastic/local_places.h:
  // a worker keeps its GPU in every world, one that joins takes a free one),
  // so on one machine the world may never outgrow its GPUs: max_np bounds it
  // (across hosts, their slots do). Checkpoints and elastic commits copy a
  // GPU's parameters and optimizer state to the host and back; over Gloo
  // (staged) workers may share GPUs.
  const bool elasticOverNccl = nccl && cell.text("recovery") == "elastic";
  const std::string oneGpuEach = where + ": recovery = \"elastic\" over " + backendName +
                                 " puts each worker, and each that joins, on a GPU of its own: ";
  const std::string otherwise = " (or use gloo, over which workers may share a GPU)";
  if (elasticOverNccl && cell.integer("max_np") == 0)
    return DeviceProblem{
        "max_np", oneGpuEach + "set max_np, at most the GPUs of the machine (0 sets no bound)" + otherwise};
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
  if (elasticOverNccl && cell.integer("max_np") > gpus.count) {
    return DeviceProblem{"max_np",
                         oneGpuEach + "max_np " + std::to_string(cell.integer("max_np")) +
                             " is more than the " + std::to_string(gpus.count) + " GPUs visible here" +
                             otherwise,
                         true};
  }
  return std::nullopt;
}

}  // namespace dtb::core
