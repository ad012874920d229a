#include "cuda/cuda_probe.h"

namespace dtb::core {

std::string describe(const CudaProbe& probe) {
  if (!probe.built) return "CUDA not built in: " + probe.problem;
  std::string line = "CUDA runtime " + std::to_string(probe.runtimeVersion / 1000) + "." +
                     std::to_string(probe.runtimeVersion % 1000 / 10) + " built in; ";
  if (probe.devices.empty()) return line + "no GPU usable (" + probe.problem + "): GPU paths are skipped";
  line += std::to_string(probe.devices.size()) + " GPU(s):";
  for (const std::string& name : probe.devices) line += " " + name;
  return line;
}

}  // namespace dtb::core
