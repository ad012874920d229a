// Where a cell trains, checked at plan time: device = "cuda" needs a GPU
// here (for ranks started here), one per rank over a backend that moves GPU
// memory (NCCL puts one rank on each; over Gloo or MPI the host stages GPU
// tensors through pinned memory and ranks may share one), and none of what
// does not run on GPU tensors yet; a GPU-only backend needs device = "cuda".
// The planner reports the problem at the key it names.
#pragma once

#include <optional>
#include <string>

#include "dtbench/backend.h"
#include "matrix/cell.h"

namespace dtb::core {

// The GPUs this machine offers local ranks: how many, and why none when 0.
struct LocalGpus {
  int count = 0;
  std::string whyNone;
};

struct DeviceProblem {
  std::string key;  // the matrix key to point at
  std::string message;
  bool aboutThisMachine = false;  // its GPUs, not the matrix: another machine may run it
};

// `backend` is the cell's loaded backend (null when not loaded); `gpus` is
// asked only for cells that want a GPU and start their ranks here.
std::optional<DeviceProblem> deviceProblem(const Cell& cell, const dtb_backend_plugin_v1_t* backend,
                                           const LocalGpus& gpus);

}  // namespace dtb::core
