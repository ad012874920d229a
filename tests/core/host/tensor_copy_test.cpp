// The host's tensor_copy service (ABI 1.7) in host memory, as a strategy
// calls it through the table, and the C++ helper strategies use
// (tensor_ops.hpp). Its GPU path runs in run.gpu_strategies on a GPU.
#include "host/tensor_copy.h"

#include <gtest/gtest.h>

#include <vector>

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
  refused(host->tensor_copy(host->ctx, &i, 0, &s, 0, 2, 1.0f, 0), "dst is not f32");
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

}  // namespace
}  // namespace dtb::core
