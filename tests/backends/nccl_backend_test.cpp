// The NCCL backend on every machine: the plugin builds, loads, says what it
// is and, without a GPU, says so when asked to connect; the parts that need
// no GPU (the watchdog against a scripted fake, the id exchange through the
// file store, the options) are checked here. What needs a GPU runs where one
// is and skips, saying why, where none is.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <thread>

#include "backend_test_support.h"
#include "cuda/cuda_memory.h"
#include "cuda/cuda_probe.h"
#include "dtbench/half.hpp"
#include "host/communicator.h"
#include "id_exchange.h"
#include "options.h"
#ifdef DTBENCH_HAVE_HIREDIS
#include "redis_id_store.h"
#endif
#include "sweep/gpu_check.h"
#include "watchdog.h"

namespace dtb::testing {
namespace {

using namespace std::chrono_literals;
using backend::nccl::Verdict;

bool gpuHere() { return !core::probeCuda().devices.empty(); }

std::shared_ptr<const core::LoadedPlugin> ncclPlugin(core::PluginLoader& loader) {
  return loader.load(core::PluginKind::kBackend, "nccl");
}

TEST(NcclPlugin, LoadsAndDeclaresGpuMemoryOnly) {
  core::PluginLoader loader(core::SearchPath({DTBENCH_PLUGIN_DIR}));
  auto plugin = ncclPlugin(loader);
  const auto& d = plugin->descriptor<dtb_backend_plugin_v1_t>();
  EXPECT_TRUE(d.capabilities & DTB_BACKEND_CAP_CUDA_MEMORY);
  EXPECT_FALSE(d.capabilities & DTB_BACKEND_CAP_HOST_MEMORY);
  for (uint32_t op : {DTB_BACKEND_CAP_ALLREDUCE, DTB_BACKEND_CAP_REDUCE_SCATTER, DTB_BACKEND_CAP_ALLGATHER,
                      DTB_BACKEND_CAP_BROADCAST, DTB_BACKEND_CAP_BARRIER, DTB_BACKEND_CAP_REBUILD}) {
    EXPECT_TRUE(d.capabilities & op) << std::hex << op;
  }
  EXPECT_NE(d.set_stream, nullptr);
  std::vector<std::string> names;
  for (const core::ParamSpec& p : plugin->params()) names.push_back(p.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"group_calls", "max_ctas", "busy_time", "algorithm", "protocol"}));
}

TEST(NcclPlugin, WithoutAGpuCreateSaysSoAndNamesTheWayOut) {
  if (gpuHere()) GTEST_SKIP() << "a GPU is usable here: NcclOnGpu covers create";
  TempDir store;
  core::PluginLoader loader(core::SearchPath({DTBENCH_PLUGIN_DIR}));
  const std::string path = store.path().string();
  const dtb_rendezvous_t rdv = fileStoreRendezvous(0, 1, path.c_str(), "nogpu", 2000);
  try {
    core::createBackend(ncclPlugin(loader), {}, rdv);
    FAIL() << "made an NCCL communicator without a GPU";
  } catch (const core::PluginCallError& e) {
    EXPECT_EQ(e.status(), DTB_STATUS_UNSUPPORTED) << e.what();
    EXPECT_NE(std::string(e.what()).find("no GPU is usable"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("use gloo or mpi"), std::string::npos) << e.what();
  }
}

// ---- The watchdog, against a fake communicator --------------------------------

struct FakeComm : backend::nccl::Watched {
  int finishAfterPolls = -1;  // -1: never
  int failAfterPolls = -1;
  int polls = 0;
  int aborts = 0;
  bool finished() override { return finishAfterPolls >= 0 && polls >= finishAfterPolls; }
  std::optional<std::string> failure() override {
    ++polls;
    if (failAfterPolls >= 0 && polls > failAfterPolls)
      return "remote process exited or there was a network error";
    return std::nullopt;
  }
  void abort() override { ++aborts; }
};

TEST(NcclWatchdog, AFinishedCollectiveIsOkAndNothingIsAborted) {
  FakeComm comm;
  comm.finishAfterPolls = 5;
  const Verdict v = backend::nccl::watch(comm, 10s);
  EXPECT_EQ(v.status, DTB_STATUS_OK);
  EXPECT_TRUE(v.why.empty());
  EXPECT_EQ(comm.aborts, 0);
}

TEST(NcclWatchdog, AnAsynchronousErrorAbortsOnceAndSaysWhatNcclSaid) {
  FakeComm comm;
  comm.failAfterPolls = 3;
  const Verdict v = backend::nccl::watch(comm, 10s);
  EXPECT_EQ(v.status, DTB_STATUS_COMM_FAILURE);
  EXPECT_NE(v.why.find("network error"), std::string::npos) << v.why;
  EXPECT_EQ(comm.aborts, 1);
}

TEST(NcclWatchdog, TheErrorWinsOverAnEventThatFiredForAbandonedWork) {
  FakeComm comm;
  comm.finishAfterPolls = 0;
  comm.failAfterPolls = 0;
  EXPECT_EQ(backend::nccl::watch(comm, 10s).status, DTB_STATUS_COMM_FAILURE);
  EXPECT_EQ(comm.aborts, 1);
}

TEST(NcclWatchdog, AStuckCollectiveTimesOutAndIsAborted) {
  FakeComm comm;  // never finishes, never fails: a peer that stopped
  const Verdict v = backend::nccl::watch(comm, 30ms);
  EXPECT_EQ(v.status, DTB_STATUS_TIMEOUT);
  EXPECT_NE(v.why.find("30 ms"), std::string::npos) << v.why;
  EXPECT_EQ(comm.aborts, 1);
  EXPECT_GT(comm.polls, 1);  // it kept looking until the deadline
}

TEST(NcclWatchdog, HealthKeepsTheFirstReason) {
  backend::nccl::Health health;
  EXPECT_FALSE(health.aborted());
  health.abortedBecause("allreduce #3: not finished after 100 ms");
  health.abortedBecause("later");
  EXPECT_TRUE(health.aborted());
  EXPECT_EQ(health.reason(), "allreduce #3: not finished after 100 ms");
}

// ---- The unique id through the file store ---------------------------------------

TEST(NcclIdExchange, EveryRankGetsRankZerosBytes) {
  TempDir dir;
  const std::string id(128, '\0');  // NCCL ids hold zeros: the bytes must pass whole
  std::string made = id;
  made[5] = 'x';
  made[127] = '\x7f';
  std::vector<std::string> got(4);
  std::vector<std::thread> ranks;
  for (int r = 3; r >= 0; --r) {  // the readers start first
    ranks.emplace_back([&, r] {
      backend::nccl::FileIdStore store(dir.path());
      got[r] = backend::nccl::shareUniqueId(
          store, "run7-nccl-id", r, [&] { return made; }, 10s);
    });
  }
  for (auto& t : ranks) t.join();
  for (const std::string& g : got) EXPECT_EQ(g, made);
}

TEST(NcclIdExchange, ARankWhoseRankZeroNeverComesTimesOutNamingTheStore) {
  TempDir dir;
  backend::nccl::FileIdStore store(dir.path());
  try {
    backend::nccl::shareUniqueId(
        store, "run8-nccl-id", 2, [] { return std::string("never"); }, 30ms);
    FAIL() << "got an id nobody published";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), DTB_STATUS_TIMEOUT);
    const std::string what = e.what();
    EXPECT_NE(what.find("rank 2"), std::string::npos) << what;
    EXPECT_NE(what.find(dir.path().string()), std::string::npos) << what;
    EXPECT_NE(what.find("run8-nccl-id"), std::string::npos) << what;
  }
}

TEST(NcclIdExchange, AKeyIsOneFileInTheStoreEvenWithSlashes) {
  TempDir dir;
  backend::nccl::FileIdStore store(dir.path());
  store.set("a/b", "id");
  EXPECT_TRUE(std::filesystem::exists(dir / "a_b"));
  EXPECT_EQ(store.tryGet("a/b"), "id");
  EXPECT_FALSE(store.tryGet("other").has_value());
}

#ifdef DTBENCH_HAVE_HIREDIS
// Ranks on hosts without a shared directory meet through Redis: a real
// redis-server on a random port, as the run-level test starts one.
TEST(NcclIdExchange, ThroughARedisServerEveryRankGetsTheSameBytes) {
  if (std::system("command -v redis-server >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no redis-server here (tools/install-deps.sh --tests installs it)";
  TempDir dir;
  const std::string pidFile = (dir / "redis.pid").string();
  std::unique_ptr<backend::nccl::RedisIdStore> probe;
  int port = 0;
  for (int attempt = 0; attempt < 5 && !probe; ++attempt) {
    port = 20000 + static_cast<int>(std::chrono::steady_clock::now().time_since_epoch().count() % 20000);
    const std::string start = "redis-server --port " + std::to_string(port) +
                              " --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --pidfile " +
                              pidFile + " --dir " + dir.path().string() + " >/dev/null 2>&1";
    if (std::system(start.c_str()) != 0) continue;
    for (int wait = 0; wait < 100 && !probe; ++wait) {
      try {
        probe = std::make_unique<backend::nccl::RedisIdStore>("127.0.0.1:" + std::to_string(port), 1s);
      } catch (const std::exception&) {
        std::this_thread::sleep_for(20ms);
      }
    }
  }
  ASSERT_TRUE(probe) << "redis-server did not start";
  const std::string address = "127.0.0.1:" + std::to_string(port);
  std::string made(128, '\0');
  made[1] = 'i';
  made[126] = 'd';
  std::vector<std::string> got(3);
  std::vector<std::thread> ranks;
  for (int r = 2; r >= 0; --r) {
    ranks.emplace_back([&, r] {
      backend::nccl::RedisIdStore store(address, 5s);
      got[r] = backend::nccl::shareUniqueId(
          store, "redis-run-nccl-id", r, [&] { return made; }, 10s);
    });
  }
  for (auto& t : ranks) t.join();
  for (const std::string& g : got) EXPECT_EQ(g, made);
  EXPECT_EQ(probe->where(), "the Redis server at " + address);
  std::system(("kill $(cat " + pidFile + ")").c_str());
}
#endif

// ---- Options ------------------------------------------------------------------------

TEST(NcclOptions, ChoicesBecomeNcclsOwnNames) {
  EXPECT_EQ(backend::nccl::algorithmEnvironment("auto"), std::nullopt);
  EXPECT_EQ(backend::nccl::algorithmEnvironment("ring"), "Ring");
  EXPECT_EQ(backend::nccl::algorithmEnvironment("nvls_tree"), "NVLSTree");
  EXPECT_EQ(backend::nccl::protocolEnvironment("ll128"), "LL128");
  EXPECT_EQ(backend::nccl::protocolEnvironment("auto"), std::nullopt);
  EXPECT_THROW(backend::nccl::algorithmEnvironment("butterfly"), Error);
}

// ---- The host with GPU memory --------------------------------------------------------

TEST(HostGpuMemory, WithoutAGpuAllocOnCudaIsUnsupportedWithTheReason) {
  if (gpuHere()) GTEST_SKIP() << "a GPU is usable here: NcclOnGpu.TheHostCountsGpuMemoryApart covers it";
  core::HostServices services("test", {});
  const dtb_host_t* host = services.table();
  void* out = reinterpret_cast<void*>(1);
  EXPECT_EQ(host->alloc(host->ctx, 1024, {DTB_DEVICE_CUDA, 0}, DTB_MEM_PARAMS, &out), DTB_STATUS_UNSUPPORTED);
  EXPECT_EQ(out, nullptr);
  const std::optional<std::string> error = services.takeError();
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find("no GPU memory"), std::string::npos) << *error;
  // Pinned host memory needs the driver too.
  EXPECT_EQ(host->alloc(host->ctx, 1024, {DTB_DEVICE_CUDA_HOST, 0}, DTB_MEM_BUFFERS, &out),
            DTB_STATUS_UNSUPPORTED);
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(services.takeError().has_value());
}

TEST(HostGpuMemory, ACpuBackendGivenAGpuTensorIsRefusedBeforeItRuns) {
  TempDir store;
  core::PluginLoader loader(core::SearchPath({DTBENCH_PLUGIN_DIR}));
  const std::string path = store.path().string();
  const dtb_rendezvous_t rdv = fileStoreRendezvous(0, 1, path.c_str(), "cpu", 5000);
  core::Communicator comm(core::createBackend(loader.load(core::PluginKind::kBackend, "gloo"), {}, rdv), 0, 1,
                          5s);
  EXPECT_EQ(comm.memory(), DTB_DEVICE_HOST);
  std::vector<float> data(16, 1.0f);
  dtb_tensor_t t = tensorOf(data.data(), data.size(), DTB_DTYPE_F32);
  t.device = {DTB_DEVICE_CUDA, 0};  // host memory said to be a GPU's: staging it fails, on any machine
  dtb_request_t request = reinterpret_cast<dtb_request_t>(1);
  std::string error;
  EXPECT_EQ(comm.allreduce(&t, DTB_REDUCE_SUM, &request, &error), DTB_STATUS_UNSUPPORTED);
  EXPECT_EQ(request, nullptr);
  EXPECT_NE(error.find("GPU memory"), std::string::npos) << error;
  EXPECT_NE(error.find("use nccl"), std::string::npos) << error;
  EXPECT_NE(error.find("rank 0"), std::string::npos) << error;
  EXPECT_EQ(comm.collectives(), 0u);  // nothing reached the backend
  EXPECT_EQ(comm.setStream(reinterpret_cast<void*>(1), &error), DTB_STATUS_UNSUPPORTED);
  EXPECT_NE(error.find("no GPU streams"), std::string::npos) << error;
  EXPECT_EQ(comm.setStream(nullptr, &error), DTB_STATUS_OK);
}

// ---- On a GPU ------------------------------------------------------------------------

class NcclOnGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    const core::CudaProbe gpus = core::probeCuda();
    if (gpus.devices.empty()) GTEST_SKIP() << "no GPU is usable here: " << gpus.problem;
  }
};

// Two ranks sharing one GPU over Gloo, as a one-GPU machine tests GPU
// training: their GPU tensors are staged through pinned host memory, and
// the results are on the GPU when the waits return.
TEST_F(NcclOnGpu, GlooCarriesGpuTensorsThroughPinnedMemory) {
  TempDir store;
  core::PluginLoader loader(core::SearchPath({DTBENCH_PLUGIN_DIR}));
  const auto plugin = loader.load(core::PluginKind::kBackend, "gloo");
  const std::string path = store.path().string();
  std::vector<std::vector<float>> results(2);
  std::vector<std::thread> ranks;
  for (int r = 0; r < 2; ++r) {
    ranks.emplace_back([&, r] {
      const dtb_rendezvous_t rdv = fileStoreRendezvous(r, 2, path.c_str(), "staging", 20000);
      core::Communicator comm(core::createBackend(plugin, {}, rdv), r, 2, 20s);
      const size_t count = 1000;
      const core::GpuBuffer sum(count * 4, 0), shared(count * 4, 0);
      std::vector<float> mine(count, float(r + 1)), from(count, float(10 * (r + 1)));
      core::copyToGpu(sum.data(), mine.data(), count * 4, 0);
      core::copyToGpu(shared.data(), from.data(), count * 4, 0);
      dtb_tensor_t a = tensorOf(sum.data(), count, DTB_DTYPE_F32),
                   b = tensorOf(shared.data(), count, DTB_DTYPE_F32);
      a.device = b.device = {DTB_DEVICE_CUDA, 0};
      dtb_request_t first = nullptr, second = nullptr;
      std::string error;
      ASSERT_EQ(comm.allreduce(&a, DTB_REDUCE_SUM, &first, &error), DTB_STATUS_OK) << error;
      ASSERT_EQ(comm.broadcast(&b, 1, &second, &error), DTB_STATUS_OK) << error;
      ASSERT_EQ(comm.wait(first, -1, &error), DTB_STATUS_OK) << error;
      ASSERT_EQ(comm.wait(second, -1, &error), DTB_STATUS_OK) << error;
      results[r].resize(2 * count);
      core::copyFromGpu(results[r].data(), sum.data(), count * 4, 0);
      core::copyFromGpu(results[r].data() + count, shared.data(), count * 4, 0);
    });
  }
  for (auto& t : ranks) t.join();
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(results[r].size(), 2000u);
    EXPECT_EQ(results[r][0], 3.0f) << "rank " << r << ": the sum of 1 and 2";
    EXPECT_EQ(results[r][999], 3.0f) << "rank " << r;
    EXPECT_EQ(results[r][1000], 20.0f) << "rank " << r << ": rank 1's broadcast";
  }
}

// ZeRO's collectives over Gloo on one GPU: a reduce-scatter and an in-place
// all-gather of GPU tensors, staged both ways.
TEST_F(NcclOnGpu, GlooReducesScattersAndGathersGpuTensorsThroughPinnedMemory) {
  TempDir store;
  core::PluginLoader loader(core::SearchPath({DTBENCH_PLUGIN_DIR}));
  const auto plugin = loader.load(core::PluginKind::kBackend, "gloo");
  const std::string path = store.path().string();
  std::vector<std::vector<float>> shards(2), gathered(2);
  std::vector<std::thread> ranks;
  for (int r = 0; r < 2; ++r) {
    ranks.emplace_back([&, r] {
      const dtb_rendezvous_t rdv = fileStoreRendezvous(r, 2, path.c_str(), "staging-rs", 20000);
      core::Communicator comm(core::createBackend(plugin, {}, rdv), r, 2, 20s);
      const size_t shard = 500;
      const core::GpuBuffer whole(2 * shard * 4, 0), mine(shard * 4, 0), all(2 * shard * 4, 0);
      std::vector<float> values(2 * shard);
      for (size_t k = 0; k < values.size(); ++k) values[k] = float(k) * float(r + 1);
      core::copyToGpu(whole.data(), values.data(), values.size() * 4, 0);
      std::vector<float> own(shard, float(100 + r));
      core::copyToGpu(static_cast<float*>(all.data()) + r * shard, own.data(), shard * 4, 0);
      dtb_tensor_t in = tensorOf(whole.data(), 2 * shard, DTB_DTYPE_F32),
                   out = tensorOf(mine.data(), shard, DTB_DTYPE_F32),
                   block = tensorOf(static_cast<float*>(all.data()) + r * shard, shard, DTB_DTYPE_F32),
                   result = tensorOf(all.data(), 2 * shard, DTB_DTYPE_F32);
      in.device = out.device = block.device = result.device = {DTB_DEVICE_CUDA, 0};
      dtb_request_t first = nullptr, second = nullptr;
      std::string error;
      ASSERT_EQ(comm.reduceScatter(&in, &out, DTB_REDUCE_SUM, &first, &error), DTB_STATUS_OK) << error;
      ASSERT_EQ(comm.allgather(&block, &result, &second, &error), DTB_STATUS_OK) << error;
      ASSERT_EQ(comm.wait(first, -1, &error), DTB_STATUS_OK) << error;
      ASSERT_EQ(comm.wait(second, -1, &error), DTB_STATUS_OK) << error;
      shards[r].resize(shard);
      gathered[r].resize(2 * shard);
      core::copyFromGpu(shards[r].data(), mine.data(), shard * 4, 0);
      core::copyFromGpu(gathered[r].data(), all.data(), 2 * shard * 4, 0);
    });
  }
  for (auto& t : ranks) t.join();
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(shards[r].size(), 500u);
    EXPECT_EQ(shards[r][0], float(r * 500) * 3.0f) << "rank " << r << ": its block of k x 1 + k x 2";
    EXPECT_EQ(shards[r][499], float(r * 500 + 499) * 3.0f) << "rank " << r;
    EXPECT_EQ(gathered[r][0], 100.0f) << "rank " << r << ": rank 0's block";
    EXPECT_EQ(gathered[r][999], 101.0f) << "rank " << r << ": rank 1's block";
  }
}

TEST_F(NcclOnGpu, TheHostCountsGpuMemoryApart) {
  core::HostServices services("test", {});
  const dtb_host_t* host = services.table();
  void* gpu = nullptr;
  void* cpu = nullptr;
  ASSERT_EQ(host->alloc(host->ctx, 1 << 20, {DTB_DEVICE_CUDA, 0}, DTB_MEM_PARAMS, &gpu), DTB_STATUS_OK);
  ASSERT_EQ(host->alloc(host->ctx, 4096, {DTB_DEVICE_HOST, 0}, DTB_MEM_PARAMS, &cpu), DTB_STATUS_OK);
  EXPECT_EQ(services.memory().current(DTB_MEM_PARAMS, DTB_DEVICE_CUDA), uint64_t{1} << 20);
  EXPECT_EQ(services.memory().current(DTB_MEM_PARAMS, DTB_DEVICE_HOST), 4096u);
  host->free(host->ctx, gpu);
  host->free(host->ctx, cpu);
  EXPECT_EQ(services.memory().current(DTB_MEM_PARAMS, DTB_DEVICE_CUDA), 0u);
  EXPECT_EQ(services.memory().peak(DTB_MEM_PARAMS, DTB_DEVICE_CUDA), uint64_t{1} << 20);
  EXPECT_EQ(host->alloc(host->ctx, uint64_t{1} << 50, {DTB_DEVICE_CUDA, 0}, DTB_MEM_PARAMS, &gpu),
            DTB_STATUS_OUT_OF_MEMORY);

  // Pinned staging: host memory (counted there), copied to and from the GPU.
  void* pinned = nullptr;
  ASSERT_EQ(host->alloc(host->ctx, 4096, {DTB_DEVICE_CUDA_HOST, 0}, DTB_MEM_BUFFERS, &pinned), DTB_STATUS_OK);
  EXPECT_EQ(services.memory().current(DTB_MEM_BUFFERS, DTB_DEVICE_HOST), 4096u);
  EXPECT_EQ(services.memory().current(DTB_MEM_BUFFERS, DTB_DEVICE_CUDA), 0u);
  std::memset(pinned, 7, 4096);
  core::GpuBuffer there(4096, 0);
  core::copyToGpu(there.data(), pinned, 4096, 0);
  std::vector<uint8_t> back(4096);
  core::copyFromGpu(back.data(), there.data(), 4096, 0);
  EXPECT_EQ(back, std::vector<uint8_t>(4096, 7));
  host->free(host->ctx, pinned);
  EXPECT_EQ(services.memory().current(DTB_MEM_BUFFERS, DTB_DEVICE_HOST), 0u);
}

TEST_F(NcclOnGpu, AHostTensorIsRefusedNamingTheWayOut) {
  runRanks("nccl", 1, {}, [](Rank& rank) {
    std::vector<float> data(16, 1.0f);
    dtb_tensor_t t = tensorOf(data.data(), data.size(), DTB_DTYPE_F32);  // host memory
    dtb_request_t request = nullptr;
    EXPECT_EQ(rank.backend().allreduce(rank.comm(), &t, DTB_REDUCE_SUM, &request), DTB_STATUS_UNSUPPORTED);
    const std::optional<std::string> error = rank.instance().services().takeError();
    ASSERT_TRUE(error.has_value());
    EXPECT_NE(error->find("host memory"), std::string::npos) << *error;
  });
}

// set_stream: the collective runs on the caller's stream, after the work
// already there and before the work enqueued after it, with no wait on the
// host between. An all-gather of one rank copies its input to its output:
// a slow copy into the input before it (pageable host memory, 256 MiB) and
// a copy out of the output after it show whether the order held.
TEST_F(NcclOnGpu, ACollectiveRunsInTheOrderOfTheStreamItWasGiven) {
  for (bool grouped : {false, true}) {
    runRanks("nccl", 1, {{"group_calls", grouped}}, [grouped](Rank& rank) {
      core::GpuTimer timer(0);  // a stream (its events are not used)
      const size_t count = size_t{1} << 26;
      const uint64_t bytes = count * sizeof(float);
      std::vector<float> ones(count, 1.0f), back(count, 0.0f);
      core::GpuBuffer in(bytes, 0), out(bytes, 0), copy(bytes, 0);
      core::copyToGpu(out.data(), back.data(), bytes, 0);  // zeros, synchronously
      dtb_tensor_t input = tensorOf(in.data(), count, DTB_DTYPE_F32);
      dtb_tensor_t output = tensorOf(out.data(), count, DTB_DTYPE_F32);
      input.device = output.device = {DTB_DEVICE_CUDA, 0};
      rank.instance().check("set_stream", rank.backend().set_stream(rank.comm(), timer.stream()));
      core::copyToGpuOn(in.data(), ones.data(), bytes, timer.stream());
      dtb_request_t request = nullptr;
      rank.instance().check("allgather", rank.backend().allgather(rank.comm(), &input, &output, &request));
      core::copyOnGpu(copy.data(), out.data(), bytes, timer.stream());
      rank.finish(request);
      core::copyFromGpu(back.data(), copy.data(), bytes, 0);  // synchronous: after the stream's work
      EXPECT_EQ(back, ones) << (grouped ? "grouped" : "alone");
      rank.instance().check("set_stream", rank.backend().set_stream(rank.comm(), nullptr));
    });
  }
}

// Busy time only when asked for (its timing events cost microseconds per
// launch); unmeasured, the counters say so rather than report zero.
TEST_F(NcclOnGpu, CountersTimeTheCollectivesOnTheGpuWhenAsked) {
  for (bool timed : {true, false}) {
    runRanks("nccl", 1, {{"busy_time", timed}}, [timed](Rank& rank) {
      std::vector<float> data(1 << 24, 1.0f);
      dtb_tensor_t in = rank.tensor(data.data(), data.size(), DTB_DTYPE_F32);
      std::vector<float> gathered(data.size());
      dtb_tensor_t out = rank.tensor(gathered.data(), gathered.size(), DTB_DTYPE_F32);
      rank.run([&](dtb_request_t* r) { return rank.backend().allgather(rank.comm(), &in, &out, r); });
      dtb_comm_counters_t c{};
      c.struct_size = sizeof(c);
      ASSERT_EQ(rank.backend().counters(rank.comm(), &c), DTB_STATUS_OK);
      EXPECT_EQ(c.collectives, 1u);
      if (timed) {
        EXPECT_EQ(c.struct_size, sizeof(c));
        EXPECT_GT(c.busy_ns, 1000u);  // 64 MiB copied on the GPU takes tens of microseconds
      } else {
        EXPECT_EQ(c.struct_size, offsetof(dtb_comm_counters_t, busy_ns));
      }
    });
  }
}

// group_calls: collectives issued back to back launch together at the next
// wait, in one ncclGroupStart/End, and every one of them completes with its
// own result, waited for in any order.
TEST_F(NcclOnGpu, GroupedCallsLaunchTogetherAndEachCompletes) {
  runRanks("nccl", 1, {{"group_calls", true}, {"busy_time", true}}, [](Rank& rank) {
    constexpr int kCalls = 8;
    const size_t count = 1 << 20;
    std::vector<std::vector<float>> inputs(kCalls), outputs(kCalls);
    std::vector<dtb_tensor_t> in(kCalls), out(kCalls);
    std::vector<dtb_request_t> requests(kCalls);
    for (int k = 0; k < kCalls; ++k) {
      inputs[k].assign(count, static_cast<float>(k + 1));
      outputs[k].assign(count, 0.0f);
      in[k] = rank.tensor(inputs[k].data(), count, DTB_DTYPE_F32);
      out[k] = rank.tensor(outputs[k].data(), count, DTB_DTYPE_F32);
      rank.instance().check("allgather",
                            rank.backend().allgather(rank.comm(), &in[k], &out[k], &requests[k]));
    }
    for (int k = kCalls - 1; k >= 0; --k) rank.finish(requests[k]);  // the first wait launches the group
    for (int k = 0; k < kCalls; ++k) EXPECT_EQ(outputs[k], inputs[k]) << "call " << k;
    dtb_comm_counters_t c{};
    c.struct_size = sizeof(c);
    ASSERT_EQ(rank.backend().counters(rank.comm(), &c), DTB_STATUS_OK);
    EXPECT_EQ(c.collectives, uint64_t{kCalls});
    EXPECT_GT(c.busy_ns, 0u);  // the group's one launch, timed once
  });
}

// A rank whose peer never starts: the non-blocking join is watched, and
// aborted at the timeout with a message that says what did not happen;
// then a new communicator can be made in the same process (REBUILD).
TEST_F(NcclOnGpu, AJoinWhosePeerNeverComesIsAbortedAtTheTimeoutAndANewOneWorks) {
  TempDir store;
  core::PluginLoader loader(core::SearchPath({DTBENCH_PLUGIN_DIR}));
  const std::string path = store.path().string();
  const dtb_rendezvous_t rdv = fileStoreRendezvous(0, 2, path.c_str(), "alone", 3000);  // rank 1 never comes
  const auto start = std::chrono::steady_clock::now();
  try {
    core::createBackend(ncclPlugin(loader), {}, rdv);
    FAIL() << "joined a communicator whose peer does not exist";
  } catch (const core::PluginCallError& e) {
    EXPECT_EQ(e.status(), DTB_STATUS_TIMEOUT) << e.what();
    EXPECT_NE(std::string(e.what()).find("joining the communicator"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("rank 0"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 60s);  // bounded, not hung
  // REBUILD: after the abort, this process makes a fresh communicator, and it works.
  runRanks("nccl", 1, {}, [](Rank& rank) {
    std::vector<float> data(1024, 2.0f);
    dtb_tensor_t t = rank.tensor(data.data(), data.size(), DTB_DTYPE_F32);
    rank.run([&](dtb_request_t* r) { return rank.backend().allreduce(rank.comm(), &t, DTB_REDUCE_SUM, r); });
    EXPECT_EQ(data, std::vector<float>(1024, 2.0f));
  });
}

// The sweep's check where the result lies: every element right counts 0,
// and each element spoiled counts once, in every dtype.
TEST_F(NcclOnGpu, TheGpuCheckCountsExactlyTheWrongElements) {
  const core::sweep::Expectation want{core::sweep::Collective::kAllreduce, DTB_REDUCE_SUM, 0, 3, 1000, 1000};
  for (dtb_dtype_t dtype : {DTB_DTYPE_F32, DTB_DTYPE_F64, DTB_DTYPE_F16, DTB_DTYPE_BF16, DTB_DTYPE_I32,
                            DTB_DTYPE_I64, DTB_DTYPE_I8, DTB_DTYPE_U8}) {
    const size_t count = 1000, element = dtypeSize(dtype);
    std::vector<double> values(count);
    for (size_t i = 0; i < count; ++i) values[i] = want.at(i);
    std::vector<uint8_t> host(count * element);
    const auto store = [&](size_t i, double v) {  // as a backend would store it
      void* at = host.data() + i * element;
      switch (dtype) {
        case DTB_DTYPE_F32:
          *static_cast<float*>(at) = static_cast<float>(v);
          break;
        case DTB_DTYPE_F64:
          *static_cast<double*>(at) = v;
          break;
        case DTB_DTYPE_F16:
          *static_cast<uint16_t*>(at) = floatToHalf(static_cast<float>(v));
          break;
        case DTB_DTYPE_BF16:
          *static_cast<uint16_t*>(at) = floatToBfloat16(static_cast<float>(v));
          break;
        case DTB_DTYPE_I32:
          *static_cast<int32_t*>(at) = static_cast<int32_t>(v);
          break;
        case DTB_DTYPE_I64:
          *static_cast<int64_t*>(at) = static_cast<int64_t>(v);
          break;
        case DTB_DTYPE_I8:
          *static_cast<int8_t*>(at) = static_cast<int8_t>(static_cast<int64_t>(v));
          break;
        case DTB_DTYPE_U8:
          *static_cast<uint8_t*>(at) = static_cast<uint8_t>(static_cast<int64_t>(v));
          break;
      }
    };
    for (size_t i = 0; i < count; ++i) store(i, values[i]);
    core::GpuBuffer gpu(host.size(), 0);
    dtb_tensor_t result = tensorOf(gpu.data(), count, dtype);
    result.device = {DTB_DEVICE_CUDA, 0};
    core::copyToGpu(gpu.data(), host.data(), host.size(), 0);
    EXPECT_EQ(core::countWrongOnGpu(result, want), 0) << dtypeName(dtype);
    for (size_t i : {size_t{0}, size_t{500}, count - 1}) store(i, values[i] + 2);
    core::copyToGpu(gpu.data(), host.data(), host.size(), 0);
    EXPECT_EQ(core::countWrongOnGpu(result, want), 3) << dtypeName(dtype);
  }
}

}  // namespace
}  // namespace dtb::testing
