// The host's tensor_copy service (ABI 1.7; f16, bf16 and conversions 1.10) in host memory, as a strategy
// calls it through the table, and the C++ helper strategies use
// (tensor_ops.hpp). Its GPU path runs in run.gpu_strategies on a GPU.
#include "host/tensor_copy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "dtbench/half.hpp"
#include "dtbench/tensor_ops.hpp"
#include "host/host_services.h"
#include "train/optimizer.h"

namespace dtb::core {
namespace {

dtb_tensor_t f32(std::vector<float>& v) { return dtb::hostTensor(v.data(), v.size(), DTB_DTYPE_F32); }

// A strategy's table: the engine binds an optimizer (and a communicator).
struct StrategyHost {
  Optimizer optimizer{OptimizerConfig{}};
  HostServices services{"strategy/test", {}};
  StrategyHost() { services.bind(nullptr, &optimizer); }
  const dtb_host_t* table() { return services.table(); }
};

TEST(TensorCopy, ScalesAccumulatesAndZeroesRangesInHostMemory) {
  StrategyHost h;
  const dtb_host_t* host = h.table();
  ASSERT_TRUE(DTB_HAS_SERVICE(host, tensor_copy));
  std::vector<float> src{1, 2, 3, 4}, dst{10, 10, 10, 10, 10, 10};
  dtb_tensor_t s = f32(src), d = f32(dst);
  ASSERT_EQ(host->tensor_copy(host->ctx, &d, 1, &s, 2, 2, 0.5f, 0), DTB_STATUS_OK);
  EXPECT_EQ(dst, (std::vector<float>{10, 1.5f, 2, 10, 10, 10}));
  ASSERT_EQ(host->tensor_copy(host->ctx, &d, 4, &s, 0, 2, 2.0f, 1), DTB_STATUS_OK);
  EXPECT_EQ(dst, (std::vector<float>{10, 1.5f, 2, 10, 12, 14}));
  ASSERT_EQ(host->tensor_copy(host->ctx, &d, 0, nullptr, 0, 3, 7.0f, 1), DTB_STATUS_OK);  // zeros
  EXPECT_EQ(dst, (std::vector<float>{0, 0, 0, 10, 12, 14}));
  ASSERT_EQ(host->tensor_copy(host->ctx, &d, 3, &d, 3, 3, -1.0f, 0), DTB_STATUS_OK);  // in place
  EXPECT_EQ(dst, (std::vector<float>{0, 0, 0, -10, -12, -14}));
}

TEST(TensorCopy, RefusesWhatWouldReadOrWriteOutOfPlaceNamingIt) {
  StrategyHost h;
  const dtb_host_t* host = h.table();
  std::vector<float> src{1, 2, 3, 4}, dst(4, 0.0f);
  std::vector<int32_t> ints(4, 0);
  dtb_tensor_t s = f32(src), d = f32(dst), i = dtb::hostTensor(ints.data(), ints.size(), DTB_DTYPE_I32);
  const auto refused = [&](dtb_status_t status, const std::string& words) {
    EXPECT_EQ(status, DTB_STATUS_INVALID_ARGUMENT) << words;
    const std::optional<std::string> why = h.services.takeError();
    ASSERT_TRUE(why) << words;
    EXPECT_NE(why->find(words), std::string::npos) << *why;
  };
  refused(host->tensor_copy(host->ctx, &d, 3, &s, 0, 2, 1.0f, 0),
          "dst's range [3, +2) runs past its 4 elements");
  refused(host->tensor_copy(host->ctx, &d, 0, &s, 3, 2, 1.0f, 0), "src's range [3, +2) runs past its 4");
  refused(host->tensor_copy(host->ctx, &d, UINT64_MAX, &s, 0, 2, 1.0f, 0), "runs past");  // no wrap-around
  refused(host->tensor_copy(host->ctx, &i, 0, &s, 0, 2, 1.0f, 0), "dst is i32, not f32, f16 or bf16");
  ASSERT_EQ(host->tensor_copy(host->ctx, &d, 0, &s, 0, 3, 1.0f, 0), DTB_STATUS_OK);  // the one valid copy
  refused(host->tensor_copy(host->ctx, &d, 1, &d, 0, 3, 1.0f, 0), "overlap without being the same");
  EXPECT_EQ(host->tensor_copy(host->ctx, nullptr, 0, &s, 0, 1, 1.0f, 0), DTB_STATUS_INVALID_ARGUMENT);
  h.services.takeError();
  // Between host memory and a GPU only plain copies: refused before any
  // memory is touched (this pointer is no GPU's).
  dtb_tensor_t gpu = d;
  gpu.device = {DTB_DEVICE_CUDA, 0};
  refused(host->tensor_copy(host->ctx, &gpu, 0, &s, 0, 2, 0.5f, 0), "only a plain copy");
  dtb_tensor_t elsewhere = d;
  elsewhere.device = {DTB_DEVICE_CUDA_HOST, 0};  // for alloc() only, never a tensor's
  refused(host->tensor_copy(host->ctx, &elsewhere, 0, &s, 0, 1, 1.0f, 0), "neither host memory nor a GPU");
  EXPECT_EQ(dst, (std::vector<float>{1, 2, 3, 0})) << "only the one valid copy wrote";
}

// Since 1.10: f16 and bf16 ranges, and conversions between them and f32,
// computed in f32 and rounded to nearest even (DDP's compression hooks on a
// GPU cast a bucket to half precision and back this way).
TEST(TensorCopy, ConvertsBetweenF32AndHalfPrecisionsRoundingToNearestEven) {
  StrategyHost h;
  const dtb_host_t* host = h.table();
  std::vector<float> wide{1.0f, 1.0f / 3, 65520.0f, -2.5f};
  std::vector<uint16_t> half(4, 0), brain(4, 0);
  dtb_tensor_t w = f32(wide), f16 = dtb::hostTensor(half.data(), 4, DTB_DTYPE_F16),
               bf16 = dtb::hostTensor(brain.data(), 4, DTB_DTYPE_BF16);
  ASSERT_EQ(host->tensor_copy(host->ctx, &f16, 0, &w, 0, 4, 1.0f, 0), DTB_STATUS_OK);
  for (size_t k = 0; k < 4; ++k) EXPECT_EQ(half[k], dtb::floatToHalf(wide[k])) << k;
  EXPECT_EQ(dtb::halfToFloat(half[2]), INFINITY) << "65520 rounds up past fp16's largest";
  ASSERT_EQ(host->tensor_copy(host->ctx, &bf16, 0, &w, 0, 4, 0.5f, 0), DTB_STATUS_OK);
  for (size_t k = 0; k < 4; ++k) EXPECT_EQ(brain[k], dtb::floatToBfloat16(wide[k] * 0.5f)) << k;
  // In place in f16: divided by the world there and rounded again, as DDP's hook.
  ASSERT_EQ(host->tensor_copy(host->ctx, &f16, 0, &f16, 0, 2, 0.25f, 0), DTB_STATUS_OK);
  EXPECT_EQ(half[0], dtb::floatToHalf(0.25f));
  EXPECT_EQ(half[1], dtb::floatToHalf(dtb::halfToFloat(dtb::floatToHalf(1.0f / 3)) * 0.25f));
  // Back to f32, accumulating: exact widening.
  std::vector<float> back{1, 1, 1, 1};
  dtb_tensor_t b = f32(back);
  ASSERT_EQ(host->tensor_copy(host->ctx, &b, 0, &bf16, 0, 4, 1.0f, 1), DTB_STATUS_OK);
  for (size_t k = 0; k < 4; ++k) EXPECT_EQ(back[k], 1.0f + dtb::bfloat16ToFloat(brain[k])) << k;
  // A conversion over its own memory would read what it already wrote.
  dtb_tensor_t halfOverWide = dtb::hostTensor(wide.data(), 4, DTB_DTYPE_F16);
  EXPECT_EQ(host->tensor_copy(host->ctx, &halfOverWide, 0, &w, 0, 2, 1.0f, 0), DTB_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(h.services.takeError()->find("overlap without being the same"), std::string::npos);
  // Between host memory and a GPU: one dtype only (refused before any copy).
  dtb_tensor_t gpu = f16;
  gpu.device = {DTB_DEVICE_CUDA, 0};
  EXPECT_EQ(host->tensor_copy(host->ctx, &gpu, 0, &w, 0, 2, 1.0f, 0), DTB_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(h.services.takeError()->find("only a plain copy is done (one dtype; this is f32 to f16)"),
            std::string::npos);
}

TEST(TensorCopy, OnlyStrategiesHaveIt) {
  HostServices services("model/test", {});
  const dtb_host_t* host = services.table();
  std::vector<float> v(2, 1.0f);
  dtb_tensor_t t = f32(v);
  EXPECT_EQ(host->tensor_copy(host->ctx, &t, 0, nullptr, 0, 2, 1.0f, 0), DTB_STATUS_UNSUPPORTED);
  EXPECT_NE(services.takeError()->find("tensor_copy: not available to this plugin instance"),
            std::string::npos);
  EXPECT_EQ(v, (std::vector<float>{1, 1}));
}

// tensor_ops.hpp: host tensors are copied in place, GPU ones through the
// host; a host without tensor_copy (older than ABI 1.7) is refused for a
// GPU at once, by the strategy's name, and still serves host tensors.
TEST(TensorCopy, TheHelperCopiesHostTensorsItselfAndNeedsTheServiceForGpus) {
  StrategyHost h;
  dtb_host_t older = *h.table();
  older.struct_size = offsetof(dtb_host_t, tensor_copy);
  const dtb::TensorOps ops(&older, "mine");
  std::vector<float> src{1, 2, 3}, dst(3, 5.0f);
  ops.copy(f32(dst), 0, f32(src), 0, 3, 2.0f, /*accumulate=*/true);
  EXPECT_EQ(dst, (std::vector<float>{7, 9, 11}));
  ops.copy(f32(dst), 1, f32(src), 0, 2);
  EXPECT_EQ(dst, (std::vector<float>{7, 1, 2}));
  ops.zero(f32(dst), 0, 2);
  EXPECT_EQ(dst, (std::vector<float>{0, 0, 2}));
  try {
    ops.require({DTB_DEVICE_CUDA, 0});
    FAIL() << "a GPU without tensor_copy was accepted";
  } catch (const dtb::Error& e) {
    EXPECT_EQ(e.status(), DTB_STATUS_UNSUPPORTED);
    EXPECT_NE(std::string(e.what()).find("mine: this host has no tensor_copy (ABI 1.7)"), std::string::npos);
  }
  EXPECT_NO_THROW(ops.require({DTB_DEVICE_HOST, 0}));
}

// The helper converts host tensors itself, as the host does; on a GPU it
// asks for bf16 and f16 only a host that takes them (ABI 1.10).
TEST(TensorCopy, TheHelperConvertsOnTheHostAndAsksANewEnoughHostForHalfPrecisionOnGpus) {
  StrategyHost h;
  const dtb::TensorOps ops(h.table(), "mine");
  std::vector<float> wide{1.0f / 3, 2.0f};
  std::vector<uint16_t> half(2, 0);
  const dtb_tensor_t f16 = dtb::hostTensor(half.data(), 2, DTB_DTYPE_F16);
  ops.copy(f16, 0, f32(wide), 0, 2, 0.5f);
  EXPECT_EQ(half, (std::vector<uint16_t>{dtb::floatToHalf(1.0f / 6), dtb::floatToHalf(1.0f)}));
  ops.copy(f32(wide), 0, f16, 0, 2, 1.0f, /*accumulate=*/true);
  EXPECT_EQ(wide[1], 3.0f);
  std::vector<int32_t> ints(2, 7), moreInts(2, 0);
  const dtb_tensor_t i32 = dtb::hostTensor(ints.data(), 2, DTB_DTYPE_I32);
  ops.copy(dtb::hostTensor(moreInts.data(), 2, DTB_DTYPE_I32), 0, i32, 0, 2);  // plain: any dtype
  EXPECT_EQ(moreInts, ints);
  EXPECT_THROW(ops.copy(f32(wide), 0, i32, 0, 2), dtb::Error);

  dtb_host_t older = *h.table();
  older.abi_version = DTB_ABI_MAKE_VERSION(1, 9);
  const dtb::TensorOps onOlder(&older, "mine");
  dtb_tensor_t gpuHalf = f16;
  gpuHalf.device = {DTB_DEVICE_CUDA, 0};
  try {
    onOlder.copy(gpuHalf, 0, gpuHalf, 0, 2, 0.5f);
    FAIL() << "f16 on a GPU was handed to a host of ABI 1.9";
  } catch (const dtb::Error& e) {
    EXPECT_EQ(e.status(), DTB_STATUS_UNSUPPORTED);
    EXPECT_NE(std::string(e.what()).find("mine: this host copies f32 tensors only on a GPU"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace dtb::core
