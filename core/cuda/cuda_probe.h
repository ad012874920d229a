// Is CUDA built in, and is a GPU usable? GPU code paths ask this first and
// skip cleanly when the answer is no (the CI machines have no GPU).
#pragma once

#include <string>
#include <vector>

#include "dtbench/dtbench.h"

namespace dtb::core {

struct CudaProbe {
  bool built = false;                // this binary has CUDA code
  int runtimeVersion = 0;            // e.g. 13000; 0 when not built
  int driverVersion = 0;             // 0 when no driver is installed
  std::vector<std::string> devices;  // names of the visible GPUs
  std::string problem;               // why no GPU is usable, when `devices` is empty
};

CudaProbe probeCuda();

// The GPU a rank with this local rank works on: local rank modulo the GPUs
// visible to the process (so each rank of a node gets its own while there
// are enough), or DTB_DEVICE_HOST when none is usable.
dtb_device_t gpuForLocalRank(int localRank);

// One line for humans: "CUDA 13.0 built in; no GPU visible (no CUDA driver)".
std::string describe(const CudaProbe& probe);

}  // namespace dtb::core
