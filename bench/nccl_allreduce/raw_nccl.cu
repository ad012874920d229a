// The reference for bench/nccl_allreduce/compare.sh: NCCL called directly on
// one GPU, timed as `dtbench comm --backend nccl` times a collective — warm-up
// calls, then CUDA events around each timed call on one stream, the mean of
// the timed calls. OP is allreduce (in place) or allgather (out of place).
// Prints one line per size: "bytes time_us algbw_gbps".
//   raw_nccl OP MIN_BYTES MAX_BYTES FACTOR WARMUP ITERS
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#define CHECK(call)                                                             \
  do {                                                                          \
    if ((call) != 0) {                                                          \
      std::fprintf(stderr, "raw_nccl: %s failed (line %d)\n", #call, __LINE__); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr, "usage: raw_nccl allreduce|allgather MIN_BYTES MAX_BYTES FACTOR WARMUP ITERS\n");
    return 2;
  }
  const std::string op = argv[1];
  const long minBytes = std::atol(argv[2]), maxBytes = std::atol(argv[3]);
  const double factor = std::atof(argv[4]);
  const int warmup = std::atoi(argv[5]), iters = std::atoi(argv[6]);
  int device = 0;
  ncclComm_t comm;
  CHECK(ncclCommInitAll(&comm, 1, &device));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  void *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, maxBytes));
  CHECK(cudaMalloc(&out, maxBytes));
  for (long bytes = minBytes; bytes <= maxBytes; bytes = static_cast<long>(bytes * factor)) {
    const size_t count = bytes / sizeof(float);
    const auto call = [&] {
      if (op == "allreduce") return ncclAllReduce(in, in, count, ncclFloat32, ncclSum, comm, stream);
      return ncclAllGather(in, out, count, ncclFloat32, comm, stream);  // S = the output, one rank
    };
    for (int i = 0; i < warmup; ++i) CHECK(call());
    CHECK(cudaStreamSynchronize(stream));
    double total = 0;
    for (int i = 0; i < iters; ++i) {
      CHECK(cudaEventRecord(start, stream));
      CHECK(call());
      CHECK(cudaEventRecord(stop, stream));
      CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      total += ms * 1e3;
    }
    const double us = total / iters;
    std::printf("%ld %.3f %.4f\n", bytes, us, bytes / us / 1e3);
  }
  ncclCommDestroy(comm);
  return 0;
}
