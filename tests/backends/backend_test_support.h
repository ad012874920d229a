// Running N ranks of a backend as threads of one process, each with its own
// communicator instance made through the C ABI, rendezvousing through a
// private file store — as Gloo's own tests do with an in-memory store.
// Backends whose ranks must be processes (MPI) run one rank per process
// instead: the test binary is started by mpirun, and each process runs its own
// rank (mpiWorld() says the size, or 0 outside mpirun).
#pragma once

#include <barrier>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cuda/cuda_memory.h"
#include "dtbench/plugin.hpp"
#include "host/plugin_instance.h"
#include "plugin/backend_memory.h"
#include "plugin/loader.h"
#include "temp_dir.h"

namespace dtb::testing {

inline dtb_tensor_t tensorOf(void* data, uint64_t count, dtb_dtype_t dtype) {
  return dtb::hostTensor(data, count, dtype);
}

// One rank's communicator: the instance plus typed calls that wait.
// For a GPU backend the tests' host vectors are mirrored in GPU memory:
// tensor() copies them there, finish() copies the results back.
class Rank {
 public:
  Rank(std::unique_ptr<core::PluginInstance> instance, int rank, int world)
      : instance_(std::move(instance)),
        rank_(rank),
        world_(world),
        gpu_(core::movesGpuMemoryOnly(backend())) {}

  // A tensor over `count` elements at `data` (host memory), in the memory
  // the backend takes. A range inside one already given (all-gather in
  // place) lands at the same offset of that one's mirror.
  dtb_tensor_t tensor(void* data, uint64_t count, dtb_dtype_t dtype) {
    dtb_tensor_t t = tensorOf(data, count, dtype);
    if (!gpu_) return t;
    if (finishedSinceLastTensor_) mirrors_.clear();  // their collectives are done
    finishedSinceLastTensor_ = false;
    t.device = {DTB_DEVICE_CUDA, rank_};
    const size_t bytes = count * dtypeSize(dtype);
    if (bytes == 0) {
      t.data = nullptr;
      return t;
    }
    auto* host = static_cast<char*>(data);
    for (const Mirror& m : mirrors_) {
      if (host >= m.host && host + bytes <= m.host + m.bytes) {
        t.data = static_cast<char*>(m.gpu->data()) + (host - m.host);
        return t;
      }
    }
    auto gpu = std::make_unique<core::GpuBuffer>(bytes, rank_);
    core::copyToGpu(gpu->data(), host, bytes, rank_);
    t.data = gpu->data();
    mirrors_.push_back({host, bytes, std::move(gpu)});
    return t;
  }

  int rank() const { return rank_; }
  int world() const { return world_; }
  const dtb_backend_plugin_v1_t& backend() const {
    return instance_->plugin().descriptor<dtb_backend_plugin_v1_t>();
  }
  void* comm() const { return instance_->context(); }
  core::PluginInstance& instance() { return *instance_; }
  // Tears the communicator down now, as a crashed rank's would go.
  void leave() { instance_.reset(); }

  // Starts a collective with start(&request), waits for it (throwing
  // PluginCallError on failure) and frees it.
  template <typename Start>
  void run(Start&& start, int64_t timeoutMs = 30000) {
    dtb_request_t request = nullptr;
    instance_->check("start", start(&request));
    finish(request, timeoutMs);
  }

  // Waits for a started request, then frees it.
  void finish(dtb_request_t request, int64_t timeoutMs = 30000) {
    const dtb_status_t waited = backend().wait(comm(), request, timeoutMs);
    backend().request_free(comm(), request);
    instance_->check("wait", waited);
    for (const Mirror& m : mirrors_) core::copyFromGpu(m.host, m.gpu->data(), m.bytes, rank_);
    finishedSinceLastTensor_ = true;
  }

 private:
  struct Mirror {
    char* host;
    size_t bytes;
    std::unique_ptr<core::GpuBuffer> gpu;
  };
  std::unique_ptr<core::PluginInstance> instance_;
  int rank_;
  int world_;
  bool gpu_;
  std::vector<Mirror> mirrors_;
  bool finishedSinceLastTensor_ = false;
};

// The size of the MPI job this process belongs to (mpirun's environment), or
// 0 when it was not started by mpirun.
inline int mpiWorld() {
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  return size ? std::atoi(size) : 0;
}
inline int mpiRank() {
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  return rank ? std::atoi(rank) : 0;
}
// Backends whose ranks are processes, not threads.
inline bool ranksAreProcesses(const std::string& backend) { return backend == "mpi"; }

// Rank `rank` of `world` on this host, meeting the others through the file
// store in `storePath` under `prefix` (both borrowed: they must outlive the
// create call), each collective bounded by `timeoutMs`.
inline dtb_rendezvous_t fileStoreRendezvous(int rank, int world, const char* storePath, const char* prefix,
                                            int64_t timeoutMs) {
  dtb_rendezvous_t rdv{};
  rdv.struct_size = sizeof(rdv);
  rdv.rank = rank;
  rdv.world_size = world;
  rdv.local_rank = rank;
  rdv.local_size = world;
  rdv.store_path = storePath;
  rdv.prefix = prefix;
  rdv.bind_address = "127.0.0.1";
  rdv.timeout_ms = timeoutMs;
  return rdv;
}

// Runs body(rank) on `world` threads, each with a connected communicator of
// backend `name` (parameters `params`). Failures inside threads are
// reported through GoogleTest's thread-safe assertions. `waitGuardMs`: the
// rendezvous' wait_guard_ms (nonzero: a backend may block in a wait, as in
// a worker, whose guard is not installed here: nothing may hang).
inline void runRanks(const std::string& name, int world, const core::ParamValues& params,
                     const std::function<void(Rank&)>& body, int64_t timeoutMs = 20000,
                     int64_t waitGuardMs = 0) {
  TempDir store;
  core::PluginLoader loader(core::SearchPath({DTBENCH_PLUGIN_DIR, DTBENCH_TEST_PLUGIN_DIR}));
  auto plugin = loader.load(core::PluginKind::kBackend, name);
  static int generation = 0;
  const std::string prefix = "test" + std::to_string(++generation);
  // No rank tears down its communicator while a peer may still be finishing
  // a collective with it (a real run ends with a barrier for the same reason).
  std::barrier allDone(ranksAreProcesses(name) ? 1 : world);
  auto runRank = [&](int r) {
    const std::string path = store.path().string();
    dtb_rendezvous_t rdv = fileStoreRendezvous(r, world, path.c_str(), prefix.c_str(), timeoutMs);
    rdv.wait_guard_ms = waitGuardMs;
    std::unique_ptr<Rank> rank;
    try {
      rank = std::make_unique<Rank>(core::createBackend(plugin, params, rdv), r, world);
      body(*rank);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "rank " << r << ": " << e.what();
    }
    if (ranksAreProcesses(name) && rank) {
      // Processes: the backend's own barrier stands in for the thread barrier.
      try {
        rank->run([&](dtb_request_t* req) { return rank->backend().barrier(rank->comm(), req); });
      } catch (const std::exception& e) {
        ADD_FAILURE() << "rank " << r << ": final barrier: " << e.what();
      }
    }
    allDone.arrive_and_wait();
  };
  if (ranksAreProcesses(name)) {
    runRank(mpiRank());  // this process's rank; the callers check mpiWorld() == world
    return;
  }
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r) threads.emplace_back(runRank, r);
  for (auto& t : threads) t.join();
}

}  // namespace dtb::testing
