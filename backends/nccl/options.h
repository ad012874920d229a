// The nccl backend's parameters (declared in plugin.cpp), read once at
// create. No CUDA here, so the parsing is tested without a GPU.
#pragma once

#include <optional>
#include <string>

#include "dtbench/dtbench.h"

namespace dtb::backend::nccl {

struct Options {
  // Collectives issued back to back are launched in one ncclGroupStart/End
  // when the next test or wait comes (PyTorch's coalescing): one launch
  // instead of many for a strategy's small collectives.
  bool groupCalls = false;
  int maxCtas = 0;  // ncclConfig_t.maxCTAs; 0: NCCL's own choice
  // Time each launch with CUDA timing events for the busy counter. Off by
  // default: on an H100 the two events add ~3 us to every launch (untimed
  // completion events cost ~0.2 us), more than a small collective takes.
  bool busyTime = false;
  std::string algorithm = "auto";  // NCCL_ALGO, e.g. "ring"
  std::string protocol = "auto";   // NCCL_PROTO, e.g. "ll128"
};

// Reads the declared parameters through the host; throws dtb::Error.
Options readOptions(const dtb_host_t* host);

// The value NCCL_ALGO / NCCL_PROTO take for a parameter's choice ("ring" ->
// "Ring", "ll128" -> "LL128"); nothing for "auto" (NCCL decides). Throws
// dtb::Error (INVALID_ARGUMENT) for a name NCCL does not know.
std::optional<std::string> algorithmEnvironment(const std::string& algorithm);
std::optional<std::string> protocolEnvironment(const std::string& protocol);

}  // namespace dtb::backend::nccl
