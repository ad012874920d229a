// The reference for bench/mpi_allreduce/compare.sh: Open MPI's own blocking
// MPI_Allreduce (float sum, in place), timed as dtbench comm times a
// collective — warm-up calls, then the mean of timed calls averaged over
// ranks — at every size from -b to -e bytes by factor -f. Prints one line
// per size: "bytes time_us busbw_gbps" (nccl-tests' bus bandwidth,
// S / t x 2(n-1)/n, GB = 1e9 bytes). With THREADS = serialized, MPI is
// initialised as dtbench's backend initialises it (MPI_THREAD_SERIALIZED:
// its thread and a waiting caller take turns), which costs Open MPI's
// locking on every call (opal_using_threads); plain MPI_Init otherwise.
//   mpirun -np 2 raw_allreduce MIN_BYTES MAX_BYTES FACTOR WARMUP ITERS [single|serialized]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  const bool serialized = argc == 7 && std::string(argv[6]) == "serialized";
  if (serialized) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  if (argc != 6 && argc != 7) {
    if (rank == 0)
      std::fprintf(stderr,
                   "usage: raw_allreduce MIN_BYTES MAX_BYTES FACTOR WARMUP ITERS [single|serialized]\n");
    MPI_Finalize();
    return 2;
  }
  const long minBytes = std::atol(argv[1]), maxBytes = std::atol(argv[2]);
  const double factor = std::atof(argv[3]);
  const int warmup = std::atoi(argv[4]), iters = std::atoi(argv[5]);
  std::vector<float> buffer(static_cast<size_t>(maxBytes / sizeof(float)), 1.0f);
  for (long bytes = minBytes; bytes <= maxBytes; bytes = static_cast<long>(bytes * factor)) {
    const int count = static_cast<int>(bytes / sizeof(float));
    for (int i = 0; i < warmup; ++i)
      MPI_Allreduce(MPI_IN_PLACE, buffer.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int i = 0; i < iters; ++i)
      MPI_Allreduce(MPI_IN_PLACE, buffer.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double perCall = (MPI_Wtime() - start) / iters, mean = 0;
    MPI_Allreduce(&perCall, &mean, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    mean /= world;
    if (rank == 0) {
      const double busbw = bytes / mean / 1e9 * 2.0 * (world - 1) / world;
      std::printf("%ld %.3f %.4f\n", bytes, mean * 1e6, busbw);
    }
    // Values grow by world each call: keep them bounded.
    std::fill(buffer.begin(), buffer.end(), 1.0f);
  }
  MPI_Finalize();
  return 0;
}
