// tensor_copy on a GPU (the host's stream, gpu_tensor_ops.h): to and from
// host memory, scaled, accumulated, zeroed and in place, in the order
// issued, then read back. Skipped, in one line, where no GPU is usable.
#include <gtest/gtest.h>

#include <vector>

#include "cuda/cuda_memory.h"
#include "dtbench/half.hpp"
#include "dtbench/plugin.hpp"
#include "gpu_available.h"
#include "host/tensor_copy.h"

namespace dtb::core {
namespace {

dtb_tensor_t tensorOn(void* data, uint64_t count, dtb_device_t device) {
  dtb_tensor_t t{};
  t.data = data;
  t.count = count;
  t.dtype = DTB_DTYPE_F32;
  t.device = device;
  t.ndim = 1;
  t.shape[0] = static_cast<int64_t>(count);
  return t;
}

TEST(GpuTensorCopy, QueuedCopiesRunInOrderAndComeBack) {
  DTBENCH_SKIP_WITHOUT_GPU();
  const uint64_t n = 100000;
  GpuBuffer a(n * sizeof(float), 0), b(n * sizeof(float), 0);
  std::vector<float> host(n);
  for (uint64_t i = 0; i < n; ++i) host[i] = static_cast<float>(i % 1000);
  const dtb_tensor_t h = tensorOn(host.data(), n, {DTB_DEVICE_HOST, 0});
  const dtb_tensor_t ga = tensorOn(a.data(), n, {DTB_DEVICE_CUDA, 0});
  const dtb_tensor_t gb = tensorOn(b.data(), n, {DTB_DEVICE_CUDA, 0});
  std::string error;
  ASSERT_EQ(tensorCopy({&ga, 0}, {&h, 0}, n, 1.0f, false, &error), DTB_STATUS_OK) << error;   // host to GPU
  ASSERT_EQ(tensorCopy({&gb, 0}, {&ga, 0}, n, 0.5f, false, &error), DTB_STATUS_OK) << error;  // b = a / 2
  ASSERT_EQ(tensorCopy({&gb, 0}, {&ga, 0}, n, 2.0f, true, &error), DTB_STATUS_OK) << error;   // b += 2a
  ASSERT_EQ(tensorCopy({&gb, 10}, {nullptr, 0}, 5, 1.0f, false, &error), DTB_STATUS_OK) << error;
  ASSERT_EQ(tensorCopy({&ga, 0}, {&ga, 0}, n, -1.0f, false, &error), DTB_STATUS_OK) << error;  // in place
  std::vector<float> back(n, -7.0f);
  const dtb_tensor_t hb = tensorOn(back.data(), n, {DTB_DEVICE_HOST, 0});
  ASSERT_EQ(tensorCopy({&hb, 0}, {&gb, 0}, n, 1.0f, false, &error), DTB_STATUS_OK)
      << error;  // after the queue
  for (uint64_t i = 0; i < n; ++i) {
    const float expected = (i >= 10 && i < 15) ? 0.0f : 2.5f * host[i];
    ASSERT_EQ(back[i], expected) << "element " << i;
  }
  ASSERT_EQ(tensorCopy({&hb, 0}, {&ga, 0}, n, 1.0f, false, &error), DTB_STATUS_OK) << error;
  EXPECT_EQ(back[999], -999.0f);
  // Host memory passed as a GPU tensor is refused before any kernel runs.
  const dtb_tensor_t fake = tensorOn(host.data(), n, {DTB_DEVICE_CUDA, 0});
  EXPECT_EQ(tensorCopy({&gb, 0}, {&fake, 0}, n, 2.0f, false, &error), DTB_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(error.find("not memory of GPU 0"), std::string::npos) << error;
}

// Since ABI 1.10: f32 to f16 and bf16 and back on the GPU, rounded as the
// host rounds (DDP's compression hooks: cast, divide in half precision,
// widen). Written 2026-12-01; not yet run on a GPU.
TEST(GpuTensorCopy, ConvertsToHalfPrecisionsAndBackAsTheHostRounds) {
  DTBENCH_SKIP_WITHOUT_GPU();
  const uint64_t n = 4096;
  GpuBuffer wide(n * sizeof(float), 0), narrow(n * sizeof(uint16_t), 0);
  std::vector<float> host(n);
  for (uint64_t i = 0; i < n; ++i) host[i] = (static_cast<float>(i) - 2048.0f) / 7.0f;
  const dtb_tensor_t h = tensorOn(host.data(), n, {DTB_DEVICE_HOST, 0});
  const dtb_tensor_t gw = tensorOn(wide.data(), n, {DTB_DEVICE_CUDA, 0});
  for (const dtb_dtype_t half : {DTB_DTYPE_F16, DTB_DTYPE_BF16}) {
    dtb_tensor_t gn = tensorOn(narrow.data(), n, {DTB_DEVICE_CUDA, 0});
    gn.dtype = half;
    std::string error;
    ASSERT_EQ(tensorCopy({&gw, 0}, {&h, 0}, n, 1.0f, false, &error), DTB_STATUS_OK) << error;
    ASSERT_EQ(tensorCopy({&gn, 0}, {&gw, 0}, n, 1.0f, false, &error), DTB_STATUS_OK) << error;   // cast
    ASSERT_EQ(tensorCopy({&gn, 0}, {&gn, 0}, n, 0.25f, false, &error), DTB_STATUS_OK) << error;  // in half
    ASSERT_EQ(tensorCopy({&gw, 0}, {&gn, 0}, n, 1.0f, false, &error), DTB_STATUS_OK) << error;   // widen
    std::vector<float> back(n);
    const dtb_tensor_t hb = tensorOn(back.data(), n, {DTB_DEVICE_HOST, 0});
    ASSERT_EQ(tensorCopy({&hb, 0}, {&gw, 0}, n, 1.0f, false, &error), DTB_STATUS_OK) << error;
    for (uint64_t i = 0; i < n; ++i) {
      const float expected =
          half == DTB_DTYPE_F16
              ? dtb::halfToFloat(dtb::floatToHalf(dtb::halfToFloat(dtb::floatToHalf(host[i])) * 0.25f))
              : dtb::bfloat16ToFloat(
                    dtb::floatToBfloat16(dtb::bfloat16ToFloat(dtb::floatToBfloat16(host[i])) * 0.25f));
      ASSERT_EQ(back[i], expected) << dtb::dtypeName(half) << " element " << i;
    }
  }
}

}  // namespace
}  // namespace dtb::core
