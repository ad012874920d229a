// Ordering a GPU's streams with CUDA events, and timing one stream's work
// (cuda/gpu_stream_order.h): what the step's hand-off of a model's queued
// work and the gradient profile's GPU clock stand on. Skipped, in one line,
// where no GPU is usable; built only with CUDA (it makes streams itself).
#include "cuda/gpu_stream_order.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cuda/gpu_tensor_ops.h"
#include "gpu_available.h"

namespace dtb::core {
namespace {

// Non-blocking: the two order with nothing unless told to.
class SideStream {
 public:
  SideStream() { EXPECT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess); }
  ~SideStream() {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// Memory the stream is kept busy writing: long enough (several GiB written,
// milliseconds on any GPU) that an unordered read would come first.
constexpr size_t kBusyBytes = size_t{1} << 30;

TEST(GpuStreamOrder, TheWaitingStreamRunsAfterWhatTheOtherHadQueued) {
  DTBENCH_SKIP_WITHOUT_GPU();
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  SideStream model, host;
  void* busy = nullptr;
  int32_t* flag = nullptr;
  int32_t* seen = nullptr;
  ASSERT_EQ(cudaMalloc(&busy, kBusyBytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&flag, sizeof(int32_t)), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&seen, sizeof(int32_t)), cudaSuccess);
  ASSERT_EQ(cudaMemset(flag, 0, sizeof(int32_t)), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (int i = 0; i < 8; ++i) ASSERT_EQ(cudaMemsetAsync(busy, i, kBusyBytes, model.get()), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(flag, 0x01, sizeof(int32_t), model.get()), cudaSuccess);  // the gradient, last
  GpuStreamOrder order(0);
  order.after(host.get(), model.get());
  *seen = -1;
  ASSERT_EQ(cudaMemcpyAsync(seen, flag, sizeof(int32_t), cudaMemcpyDeviceToHost, host.get()), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(host.get()), cudaSuccess);
  EXPECT_EQ(*seen, 0x01010101) << "the host's stream read before the model's work it was ordered after";
  order.after(host.get(), host.get());  // the same stream: nothing to order
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaFreeHost(seen);
  cudaFree(flag);
  cudaFree(busy);
}

// The step's two directions with the host's real stream (a blocking one):
// the host's stream after the model's, and a synchronous copy on the legacy
// default stream (Gloo's staging) after that; then the model's stream after
// work queued on the host's.
TEST(GpuStreamOrder, TheHostsStreamAndTheLegacyStreamFollowTheModelAndTheModelFollowsTheHost) {
  DTBENCH_SKIP_WITHOUT_GPU();
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  SideStream model;
  auto host = static_cast<cudaStream_t>(gpuWorkStream(0));
  void* busy = nullptr;
  int32_t* flag = nullptr;
  ASSERT_EQ(cudaMalloc(&busy, kBusyBytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&flag, sizeof(int32_t)), cudaSuccess);
  ASSERT_EQ(cudaMemset(flag, 0, sizeof(int32_t)), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  GpuStreamOrder order(0);

  for (int i = 0; i < 8; ++i) ASSERT_EQ(cudaMemsetAsync(busy, i, kBusyBytes, model.get()), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(flag, 0x02, sizeof(int32_t), model.get()), cudaSuccess);
  order.after(host, model.get());
  int32_t seen = -1;  // pageable: cudaMemcpy returns once the copy landed
  ASSERT_EQ(cudaMemcpy(&seen, flag, sizeof(int32_t), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(seen, 0x02020202) << "the legacy default stream read before the model's work the host's followed";

  for (int i = 0; i < 8; ++i) ASSERT_EQ(cudaMemsetAsync(busy, i, kBusyBytes, host), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(flag, 0x03, sizeof(int32_t), host), cudaSuccess);  // a gather, last
  order.after(model.get(), host);
  int32_t* read = nullptr;
  ASSERT_EQ(cudaMallocHost(&read, sizeof(int32_t)), cudaSuccess);
  *read = -1;
  ASSERT_EQ(cudaMemcpyAsync(read, flag, sizeof(int32_t), cudaMemcpyDeviceToHost, model.get()), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(model.get()), cudaSuccess);
  EXPECT_EQ(*read, 0x03030303) << "the model's stream read before the host's work it was ordered after";
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaFreeHost(read);
  cudaFree(flag);
  cudaFree(busy);
}

TEST(GpuStreamMarks, MarksAreSecondsAfterTheOriginWhenTheGpuReachedThem) {
  DTBENCH_SKIP_WITHOUT_GPU();
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  SideStream stream;
  void* busy = nullptr;
  ASSERT_EQ(cudaMalloc(&busy, kBusyBytes), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(busy, 0, kBusyBytes, stream.get()), cudaSuccess);  // any first-use cost, untimed
  GpuStreamMarks marks(stream.get(), 0);
  for (int round = 0; round < 2; ++round) {  // the events are reused by the second
    marks.begin();
    ASSERT_EQ(cudaMemsetAsync(busy, 1, kBusyBytes, stream.get()), cudaSuccess);
    marks.mark();
    marks.mark();  // nothing between: the same moment
    for (int i = 0; i < 4; ++i) ASSERT_EQ(cudaMemsetAsync(busy, 2, kBusyBytes, stream.get()), cudaSuccess);
    marks.mark();
    const std::vector<double> at = marks.read();
    ASSERT_EQ(at.size(), 3u);
    EXPECT_GT(at[0], 0.0);
    EXPECT_NEAR(at[1], at[0], 1e-4);
    // Four times the first mark's work after it: well over twice its time.
    EXPECT_GT(at[2] - at[1], 2 * at[0]) << at[0] << " " << at[1] << " " << at[2];
  }
  cudaFree(busy);
}

}  // namespace
}  // namespace dtb::core
