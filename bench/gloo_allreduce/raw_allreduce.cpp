// The reference for bench/gloo_allreduce/compare.sh: Gloo's own
// gloo::allreduce (float sum, in place, Gloo's default algorithm — ring — as
// dtbench's backend asks for), called directly on the calling thread over a
// TCP device on loopback, timed as dtbench comm times a collective — warm-up
// calls, then the mean of timed calls averaged over ranks — at every size
// from MIN to MAX bytes by FACTOR. Ranks are processes that meet in a file
// store. Rank 0 prints one line per size: "bytes time_us busbw_gbps".
//   raw_allreduce RANK WORLD STORE_DIR MIN_BYTES MAX_BYTES FACTOR WARMUP ITERS
#include <gloo/allreduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

namespace {

void sum(void* out, const void* a, const void* b, size_t n) {
  auto* o = static_cast<float*>(out);
  const auto* x = static_cast<const float*>(a);
  const auto* y = static_cast<const float*>(b);
  for (size_t i = 0; i < n; ++i) o[i] = x[i] + y[i];
}

void allreduce(const std::shared_ptr<gloo::Context>& context, float* data, size_t count, uint32_t tag) {
  gloo::AllreduceOptions opts(context);
  opts.setOutput(data, count);
  opts.setReduceFunction(&sum);
  opts.setTag(tag);
  gloo::allreduce(opts);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 9) {
    std::fprintf(stderr,
                 "usage: raw_allreduce RANK WORLD STORE_DIR MIN_BYTES MAX_BYTES FACTOR WARMUP ITERS\n");
    return 2;
  }
  const int rank = std::atoi(argv[1]), world = std::atoi(argv[2]);
  const long minBytes = std::atol(argv[4]), maxBytes = std::atol(argv[5]);
  const double factor = std::atof(argv[6]);
  const int warmup = std::atoi(argv[7]), iters = std::atoi(argv[8]);
  gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  auto device = gloo::transport::tcp::CreateDevice(attr);
  gloo::rendezvous::FileStore files(argv[3]);
  gloo::rendezvous::PrefixStore store("raw", files);
  auto context = std::make_shared<gloo::rendezvous::Context>(rank, world);
  context->connectFullMesh(store, device);

  std::vector<float> buffer(static_cast<size_t>(maxBytes / sizeof(float)), 1.0f);
  uint32_t tag = 0;
  for (long bytes = minBytes; bytes <= maxBytes; bytes = static_cast<long>(bytes * factor)) {
    const size_t count = static_cast<size_t>(bytes / sizeof(float));
    for (int i = 0; i < warmup; ++i) allreduce(context, buffer.data(), count, tag++);
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) allreduce(context, buffer.data(), count, tag++);
    float perCall = static_cast<float>(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / iters);
    allreduce(context, &perCall, 1, tag++);  // summed over ranks
    const double seconds = perCall / world;
    if (rank == 0) {
      const double busbw = bytes / seconds / 1e9 * 2.0 * (world - 1) / world;
      std::printf("%ld %.3f %.4f\n", bytes, seconds * 1e6, busbw);
      std::fflush(stdout);
    }
    std::fill(buffer.begin(), buffer.end(), 1.0f);  // values grow by world each call
  }
  return 0;
}
