// DDP's fp16 / bf16 compression hooks on GPU buckets, checked on the CPU: a
// host whose "GPU" is host memory, its tensor_copy the host's own service
// run there, and a one-rank all-reduce that leaves the data as it is. The
// GPU path (cast, divide in half precision, widen, all through tensor_copy)
// must give what the host path's loops give.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <vector>

#include "comm_hook.h"
#include "dtbench/half.hpp"
#include "host/tensor_copy.h"

namespace dtb::strategy::bucketed {
namespace {

std::map<void*, size_t> fakeMemory;  // what the fake host handed out

dtb_status_t fakeAlloc(dtb_host_ctx_t, uint64_t bytes, dtb_device_t, dtb_mem_category_t, void** out) {
  *out = bytes ? ::operator new(bytes) : nullptr;
  if (*out) {
    std::memset(*out, 0, bytes);
    fakeMemory[*out] = bytes;
  }
  return DTB_STATUS_OK;
}
void fakeFree(dtb_host_ctx_t, void* p) {
  fakeMemory.erase(p);
  ::operator delete(p);
}
// The host's service, with the "GPU" tensors taken as the host memory they are.
dtb_status_t fakeTensorCopy(dtb_host_ctx_t, const dtb_tensor_t* dst, uint64_t dstOffset,
                            const dtb_tensor_t* src, uint64_t srcOffset, uint64_t count, float scale,
                            int32_t accumulate) {
  EXPECT_EQ(dst->device.type, DTB_DEVICE_CUDA) << "the GPU path copies on the GPU only";
  dtb_tensor_t d = *dst, s = src ? *src : dtb_tensor_t{};
  d.device = s.device = {DTB_DEVICE_HOST, 0};
  std::string error;
  const dtb_status_t status = core::tensorCopy({&d, dstOffset}, {src ? &s : nullptr, srcOffset}, count, scale,
                                               accumulate != 0, &error);
  EXPECT_EQ(status, DTB_STATUS_OK) << error;
  return status;
}
dtb_status_t fakeAllreduce(dtb_host_ctx_t, dtb_tensor_t*, dtb_reduce_op_t, dtb_request_t* out) {
  *out = reinterpret_cast<dtb_request_t>(1);  // one rank: the sum is the data
  return DTB_STATUS_OK;
}
dtb_status_t fakeWait(dtb_host_ctx_t, dtb_request_t, int64_t) { return DTB_STATUS_OK; }

dtb_host_t fakeHost() {
  dtb_host_t t{};
  t.struct_size = sizeof(t);
  t.abi_version = DTB_ABI_VERSION;
  t.alloc = fakeAlloc;
  t.free = fakeFree;
  t.tensor_copy = fakeTensorCopy;
  t.comm_allreduce = fakeAllreduce;
  t.comm_wait = fakeWait;
  return t;
}

// One bucket of `values` on `device` through the hook; what it holds after.
std::vector<float> throughHook(const dtb_host_t& host, bool bf16, dtb_device_t device, int world,
                               const std::vector<float>& values) {
  std::vector<Bucket> buckets(1);
  buckets[0].count = values.size();
  buckets[0].data = TypedBuffer(&host, values.size(), DTB_DTYPE_F32, DTB_MEM_BUFFERS, device);
  std::memcpy(buckets[0].data.data(), values.data(), values.size() * sizeof(float));
  std::unique_ptr<CommHook> hook = makeHalfCompressHook(&host, world, bf16, device);
  dtb_strategy_setup_t setup{};
  setup.struct_size = sizeof(setup);
  hook->attach(buckets, ParamSet("bucketed", setup));
  Requests requests(&host);
  hook->launch(0, buckets[0], requests);
  requests.waitAll();
  hook->finish(buckets);
  const auto* out = static_cast<const float*>(buckets[0].data.data());
  return {out, out + values.size()};
}

TEST(HalfCompressHook, OnGpuBucketsCastsDividesAndWidensAsOnTheHost) {
  const dtb_host_t host = fakeHost();
  std::vector<float> values;
  for (int i = -200; i < 200; ++i)
    values.push_back(static_cast<float>(i) / 7.0f + 1e-3f * static_cast<float>(i));
  for (const bool bf16 : {false, true}) {
    for (const int world : {1, 2, 4}) {  // powers of two: the division is exact either way
      const std::vector<float> onHost = throughHook(host, bf16, {DTB_DEVICE_HOST, 0}, world, values);
      const std::vector<float> onGpu = throughHook(host, bf16, {DTB_DEVICE_CUDA, 0}, world, values);
      EXPECT_EQ(onGpu, onHost) << (bf16 ? "bf16" : "fp16") << " world " << world;
      EXPECT_NE(onGpu, values) << "the values went through half precision";
    }
  }
  EXPECT_TRUE(fakeMemory.empty()) << "the hook's buffers were given back";
}

}  // namespace
}  // namespace dtb::strategy::bucketed
