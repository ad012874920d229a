// The CUDA probe answers on every machine, and GPU paths skip cleanly
// without a GPU.
#include "cuda/cuda_probe.h"

#include <gtest/gtest.h>

namespace dtb::core {
namespace {

TEST(CudaProbe, AnswersWithAReasonWhenNoGpuIsUsable) {
  CudaProbe probe = probeCuda();
  if (probe.devices.empty()) {
    EXPECT_FALSE(probe.problem.empty());
    EXPECT_NE(describe(probe).find(probe.problem), std::string::npos);
  } else {
    EXPECT_TRUE(probe.built);
  }
}

TEST(CudaProbe, SeesAGpuWhereThereIsOne) {
  CudaProbe probe = probeCuda();
  if (probe.devices.empty()) GTEST_SKIP() << "no GPU: " << describe(probe);
  EXPECT_GT(probe.runtimeVersion, 0);
  EXPECT_FALSE(probe.devices.front().empty());
}

}  // namespace
}  // namespace dtb::core
