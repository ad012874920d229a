// GPU tests skip, in one line saying why, where no GPU is usable (CI has
// none): DTBENCH_SKIP_WITHOUT_GPU() first in a test that needs one.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "cuda/cuda_probe.h"

namespace dtb::testing {

// "" where a GPU is usable; else the probe's one line on why not.
inline std::string whyNoGpu() {
  const core::CudaProbe probe = core::probeCuda();
  return probe.devices.empty() ? core::describe(probe) : "";
}

}  // namespace dtb::testing

#define DTBENCH_SKIP_WITHOUT_GPU()                                 \
  do {                                                             \
    const std::string whyNoGpu = ::dtb::testing::whyNoGpu();       \
    if (!whyNoGpu.empty()) GTEST_SKIP() << "no GPU: " << whyNoGpu; \
  } while (0)
