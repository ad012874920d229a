// The rank's GPU memory figures (memory.gpu_peak_allocated_bytes): the meter
// behind them, on stand-in blocks (it only counts; it never touches a GPU).
#include "cuda/gpu_memory_meter.h"

#include <gtest/gtest.h>

#include "cuda/cuda_memory.h"

namespace dtb::core {
namespace {

TEST(GpuMemoryMeter, KeepsTheMostHeldAtOnceNotTheSumOfEverAllocated) {
  GpuMemoryMeter meter;
  int a = 0, b = 0, c = 0;  // their addresses stand for GPU blocks
  meter.allocated(&a, 100);
  meter.allocated(&b, 300);
  EXPECT_EQ(meter.current(), 400u);
  meter.freed(&a);
  meter.allocated(&c, 50);  // 350 held: below the 400 before
  EXPECT_EQ(meter.current(), 350u);
  EXPECT_EQ(meter.peak(), 400u);
  meter.freed(&b);
  meter.freed(&c);
  EXPECT_EQ(meter.current(), 0u);
  EXPECT_EQ(meter.peak(), 400u);
}

TEST(GpuMemoryMeter, IgnoresBlocksItNeverSawAndNullOnes) {
  GpuMemoryMeter meter;
  int a = 0, stranger = 0;
  meter.allocated(&a, 64);
  meter.allocated(nullptr, 1000);  // gpuAllocate(0) gives none
  meter.freed(&stranger);
  meter.freed(nullptr);
  EXPECT_EQ(meter.current(), 64u);
  EXPECT_EQ(meter.peak(), 64u);
  meter.freed(&a);
  meter.freed(&a);  // twice: counted once
  EXPECT_EQ(meter.current(), 0u);
}

// On a GPU: the host's allocations feed the process's meter.
TEST(GpuMemoryMeter, CountsWhatGpuAllocateGives) {
  const uint64_t before = gpuMemoryMeter().current();
  void* block = nullptr;
  try {
    block = gpuAllocate(1 << 20, 0);
  } catch (const GpuUnavailable& e) {
    GTEST_SKIP() << "no GPU: " << e.what();
  }
  EXPECT_EQ(gpuMemoryMeter().current(), before + (1 << 20));
  EXPECT_GE(gpuMemoryMeter().peak(), before + (1 << 20));
  gpuFree(block, 0);
  EXPECT_EQ(gpuMemoryMeter().current(), before);
}

}  // namespace
}  // namespace dtb::core
