// The communicator as strategies reach it through comm_*: calls from several
// threads reach the backend one at a time (backend.h promises a backend
// that), and requests are checked before the backend sees them.
#include "host/communicator.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "dtbench/plugin.hpp"
#include "host/host_services.h"
#include "plugin/loader.h"
#include "plugin_dirs.h"

namespace dtb::core {
namespace {

using testing::kTestPluginDir;

dtb_rendezvous_t oneRank() {
  dtb_rendezvous_t rdv{};
  rdv.struct_size = sizeof(rdv);
  rdv.world_size = 1;
  rdv.timeout_ms = 1000;
  return rdv;
}

std::unique_ptr<Communicator> single() {
  PluginLoader loader(SearchPath({kTestPluginDir}));
  return std::make_unique<Communicator>(
      createBackend(loader.load(PluginKind::kBackend, "single"), {}, oneRank()), 0, 1,
      std::chrono::milliseconds(1000));
}

TEST(Communicator, EachRequestIsWaitedForExactlyOnce) {
  auto comm = single();
  std::string error;
  dtb_request_t request = nullptr;
  ASSERT_EQ(comm->barrier(&request, &error), DTB_STATUS_OK) << error;
  int32_t done = 0;
  EXPECT_EQ(comm->test(request, &done, &error), DTB_STATUS_OK) << error;
  EXPECT_EQ(comm->wait(request, DTB_TIMEOUT_DEFAULT, &error), DTB_STATUS_OK) << error;
  // A second wait would be a use after free in a real backend: refused here.
  EXPECT_EQ(comm->wait(request, DTB_TIMEOUT_DEFAULT, &error), DTB_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(error.find("exactly once"), std::string::npos) << error;
  EXPECT_EQ(comm->test(request, &done, &error), DTB_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(comm->wait(nullptr, DTB_TIMEOUT_DEFAULT, &error), DTB_STATUS_INVALID_ARGUMENT);
}

// comm_waited (ABI 1.6): a wait the strategy declares is the training
// thread's exposed communication; on another thread, or reversed, it is not.
TEST(Communicator, DeclaredWaitsCountOnTheTrainingThreadOnly) {
  auto comm = single();  // created here: this is the training thread
  HostServices services("strategy/test", {});
  services.bind(comm.get(), nullptr);
  const dtb_host_t* host = services.table();
  ASSERT_TRUE(DTB_HAS_SERVICE(host, comm_waited));
  const double before = comm->trainingWaitSeconds();
  host->comm_waited(host->ctx, 1'000'000, 4'000'000);  // 3 ms
  EXPECT_DOUBLE_EQ(comm->trainingWaitSeconds() - before, 0.003);
  std::thread([&] { host->comm_waited(host->ctx, 0, 5'000'000); }).join();  // a thread of the strategy's own
  host->comm_waited(host->ctx, 4'000'000, 1'000'000);                       // reversed
  EXPECT_DOUBLE_EQ(comm->trainingWaitSeconds() - before, 0.003);
  // Without a communicator (a model, or outside a run) it is ignored.
  HostServices unbound("model/test", {});
  unbound.table()->comm_waited(unbound.table()->ctx, 0, 1);
}

TEST(Communicator, AFailedIssueLeavesNoRequest) {
  auto comm = single();
  float data[2] = {1, 2};
  dtb_tensor_t buffer = dtb::hostTensor(data, 2, DTB_DTYPE_F32);
  dtb_request_t request = reinterpret_cast<dtb_request_t>(&data);  // whatever the caller had there
  std::string error;
  EXPECT_EQ(comm->broadcast(&buffer, /*root=*/1, &request, &error), DTB_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(request, nullptr);
  EXPECT_NE(error.find("only root"), std::string::npos) << error;
}

// A backend that counts calls made while another call is still inside it.
struct Overlaps {
  std::atomic<int> inside{0};
  std::atomic<int> overlapping{0};
  std::atomic<int> calls{0};
};
Overlaps overlaps;

dtb_status_t enter() {
  ++overlaps.calls;
  if (overlaps.inside.fetch_add(1) != 0) ++overlaps.overlapping;
  std::this_thread::sleep_for(std::chrono::microseconds(200));  // a window for another thread
  --overlaps.inside;
  return DTB_STATUS_OK;
}

dtb_backend_plugin_v1_t countingBackend(const dtb_plugin_header_t& header) {
  dtb_backend_plugin_v1_t d{};
  d.header = header;
  d.capabilities = DTB_BACKEND_CAP_HOST_MEMORY;  // as the loader requires of every backend
  d.create = [](const dtb_host_t*, const dtb_rendezvous_t*, void** out) {
    *out = &overlaps;
    return DTB_STATUS_OK;
  };
  d.destroy = [](void*) {};
  d.allreduce = [](void*, dtb_tensor_t*, dtb_reduce_op_t, dtb_request_t* request) {
    *request = reinterpret_cast<dtb_request_t>(new int);
    return enter();
  };
  d.test = [](void*, dtb_request_t, int32_t* done) {
    *done = 1;
    return enter();
  };
  d.wait = [](void*, dtb_request_t, int64_t) { return enter(); };
  d.request_free = [](void*, dtb_request_t request) { delete reinterpret_cast<int*>(request); };
  return d;
}

TEST(Communicator, CallsFromSeveralThreadsReachTheBackendOneAtATime) {
  // The counting backend borrows the single backend's library and header.
  PluginLoader loader(SearchPath({kTestPluginDir}));
  auto real = loader.load(PluginKind::kBackend, "single");
  auto library = std::make_shared<SharedLibrary>(real->path());
  auto plugin = std::make_shared<const LoadedPlugin>(
      library, PluginKind::kBackend, 1, countingBackend(real->header()), std::vector<ParamSpec>{});
  Communicator comm(createBackend(plugin, {}, oneRank()), 0, 1, std::chrono::milliseconds(1000));
  constexpr int kThreads = 4, kRounds = 25;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      float value = 1;
      dtb_tensor_t buffer = dtb::hostTensor(&value, 1, DTB_DTYPE_F32);
      for (int r = 0; r < kRounds; ++r) {
        dtb_request_t request = nullptr;
        std::string error;
        int32_t done = 0;
        if (comm.allreduce(&buffer, DTB_REDUCE_SUM, &request, &error) != DTB_STATUS_OK ||
            comm.test(request, &done, &error) != DTB_STATUS_OK ||
            comm.wait(request, DTB_TIMEOUT_DEFAULT, &error) != DTB_STATUS_OK)
          ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(overlaps.calls, kThreads * kRounds * 3);
  EXPECT_EQ(overlaps.overlapping, 0) << "calls entered the backend while another was inside";
  EXPECT_EQ(comm.collectives(), uint64_t{kThreads * kRounds});
}

// A backend that moves GPU memory only (as NCCL) passes host tensors to the
// control communicator beside it (Horovod's controller over Gloo): they
// are tested and waited for through the data plane's communicator, which
// counts none of them; without a control they are refused.
TEST(Communicator, HostTensorsOnAGpuOnlyBackendGoOverItsControl) {
  PluginLoader loader(SearchPath({kTestPluginDir}));
  auto real = loader.load(PluginKind::kBackend, "single");
  auto library = std::make_shared<SharedLibrary>(real->path());
  dtb_backend_plugin_v1_t gpuOnly = real->descriptor<dtb_backend_plugin_v1_t>();
  gpuOnly.capabilities =
      (gpuOnly.capabilities & ~uint32_t{DTB_BACKEND_CAP_HOST_MEMORY}) | DTB_BACKEND_CAP_CUDA_MEMORY;
  auto plugin =
      std::make_shared<const LoadedPlugin>(library, PluginKind::kBackend, 1, gpuOnly, real->params());
  Communicator comm(createBackend(plugin, {}, oneRank()), 0, 1, std::chrono::milliseconds(1000));
  int32_t words[4] = {7, 7, 7, 7};
  dtb_tensor_t flags = dtb::hostTensor(words, 1, DTB_DTYPE_I32),
               all = dtb::hostTensor(words, 4, DTB_DTYPE_I32);
  all.count = 1;  // one rank: the gathered tensor is its own block
  dtb_request_t request = nullptr;
  std::string error;
  EXPECT_EQ(comm.allreduce(&flags, DTB_REDUCE_BAND, &request, &error), DTB_STATUS_UNSUPPORTED);
  EXPECT_NE(error.find("moves GPU memory only"), std::string::npos) << error;

  comm.attachControl(single());
  ASSERT_EQ(comm.allreduce(&flags, DTB_REDUCE_BAND, &request, &error), DTB_STATUS_OK) << error;
  int32_t done = 0;
  EXPECT_EQ(comm.test(request, &done, &error), DTB_STATUS_OK) << error;
  EXPECT_EQ(comm.wait(request, DTB_TIMEOUT_DEFAULT, &error), DTB_STATUS_OK) << error;
  EXPECT_EQ(comm.wait(request, DTB_TIMEOUT_DEFAULT, &error), DTB_STATUS_INVALID_ARGUMENT) << "waited twice";
  dtb_request_t gathered = nullptr, broadcast = nullptr;
  ASSERT_EQ(comm.allgather(&flags, &all, &gathered, &error), DTB_STATUS_OK) << error;
  ASSERT_EQ(comm.broadcast(&flags, 0, &broadcast, &error), DTB_STATUS_OK) << error;
  EXPECT_EQ(comm.wait(broadcast, DTB_TIMEOUT_DEFAULT, &error), DTB_STATUS_OK) << error;
  EXPECT_EQ(comm.wait(gathered, DTB_TIMEOUT_DEFAULT, &error), DTB_STATUS_OK) << error;
  EXPECT_EQ(words[0], 7);
  EXPECT_EQ(comm.collectives(), 0u) << "the data plane carried a host tensor";
  EXPECT_GT(comm.trainingWaitSeconds(), 0.0) << "the control's waits are the training thread's waits too";
}

// Whether the host knows the stream a GPU backend's collectives run on
// (what a GPU model's queued hand-off orders after the model's work,
// train/gpu_hand_off.h): a backend of host memory always (staged copies
// follow the host's stream); a GPU backend with set_stream until a strategy
// chooses the backend's own stream again (NULL); one without set_stream
// never.
TEST(Communicator, KnowsTheCollectivesStreamUntilAStrategyChoosesTheBackendsOwn) {
  PluginLoader loader(SearchPath({kTestPluginDir}));
  auto real = loader.load(PluginKind::kBackend, "single");
  auto library = std::make_shared<SharedLibrary>(real->path());
  const auto communicatorOf = [&](uint32_t capabilities, bool setStream) {
    dtb_backend_plugin_v1_t d = real->descriptor<dtb_backend_plugin_v1_t>();
    d.capabilities = capabilities;
    d.set_stream = nullptr;
    if (setStream) d.set_stream = [](void*, void*) { return DTB_STATUS_OK; };
    auto plugin = std::make_shared<const LoadedPlugin>(library, PluginKind::kBackend, 1, d, real->params());
    return std::make_unique<Communicator>(createBackend(plugin, {}, oneRank()), 0, 1,
                                          std::chrono::milliseconds(1000));
  };
  EXPECT_TRUE(communicatorOf(DTB_BACKEND_CAP_HOST_MEMORY, false)->collectivesStreamKnown());
  EXPECT_FALSE(communicatorOf(DTB_BACKEND_CAP_CUDA_MEMORY, false)->collectivesStreamKnown());

  auto gpu = communicatorOf(DTB_BACKEND_CAP_CUDA_MEMORY, true);
  EXPECT_TRUE(gpu->collectivesStreamKnown()) << "the host's own stream, set at the first collective";
  int chosen = 0;
  std::string error;
  ASSERT_EQ(gpu->setStream(&chosen, &error), DTB_STATUS_OK) << error;
  EXPECT_TRUE(gpu->collectivesStreamKnown());
  EXPECT_EQ(gpu->strategyStream(), &chosen);
  ASSERT_EQ(gpu->setStream(nullptr, &error), DTB_STATUS_OK) << error;
  EXPECT_FALSE(gpu->collectivesStreamKnown()) << "the backend's own stream: nothing the host can order";
  EXPECT_EQ(gpu->strategyStream(), nullptr);
  ASSERT_EQ(gpu->setStream(&chosen, &error), DTB_STATUS_OK) << error;
  EXPECT_TRUE(gpu->collectivesStreamKnown());
}

// busy_ns is read only when the backend filled it: one that does not
// measure it (NCCL without busy_time) shortens struct_size before busy_ns,
// and the host reports no busy time rather than none spent.
TEST(Communicator, BusyTimeIsReportedOnlyWhenTheBackendMeasuredIt) {
  PluginLoader loader(SearchPath({kTestPluginDir}));
  auto real = loader.load(PluginKind::kBackend, "single");
  auto library = std::make_shared<SharedLibrary>(real->path());
  for (bool measured : {true, false}) {
    dtb_backend_plugin_v1_t d = countingBackend(real->header());
    d.counters = measured ? +[](void*, dtb_comm_counters_t* out) {
      out->busy_ns = 2'500'000'000;
      return DTB_STATUS_OK;
    }
                          : +[](void*, dtb_comm_counters_t* out) {
                              out->struct_size = offsetof(dtb_comm_counters_t, busy_ns);
                              return DTB_STATUS_OK;
                            };
    auto plugin =
        std::make_shared<const LoadedPlugin>(library, PluginKind::kBackend, 1, d, std::vector<ParamSpec>{});
    Communicator comm(createBackend(plugin, {}, oneRank()), 0, 1, std::chrono::milliseconds(1000));
    if (measured) {
      EXPECT_EQ(comm.busySeconds(), 2.5);
    } else {
      EXPECT_EQ(comm.busySeconds(), std::nullopt);
    }
  }
}

// A backend whose operations end when the test says so: a wait before
// that times out, and each request records whether it had ended when the
// host freed it (freeing one still running would let the operation write
// into a buffer its caller already let go).
struct Lagging {
  std::atomic<bool> ended{false};
  std::atomic<int> freed{0}, freedRunning{0};
};
Lagging lagging;

dtb_backend_plugin_v1_t laggingBackend(const dtb_plugin_header_t& header) {
  dtb_backend_plugin_v1_t d{};
  d.header = header;
  d.capabilities = DTB_BACKEND_CAP_HOST_MEMORY;
  d.create = [](const dtb_host_t*, const dtb_rendezvous_t*, void** out) {
    *out = &lagging;
    return DTB_STATUS_OK;
  };
  d.destroy = [](void*) {};
  d.allreduce = [](void*, dtb_tensor_t*, dtb_reduce_op_t, dtb_request_t* request) {
    *request = reinterpret_cast<dtb_request_t>(new int);
    return DTB_STATUS_OK;
  };
  d.test = [](void*, dtb_request_t, int32_t* done) {
    *done = lagging.ended ? 1 : 0;
    return DTB_STATUS_OK;
  };
  d.wait = [](void*, dtb_request_t, int64_t) { return lagging.ended ? DTB_STATUS_OK : DTB_STATUS_TIMEOUT; };
  d.request_free = [](void*, dtb_request_t request) {
    ++lagging.freed;
    if (!lagging.ended) ++lagging.freedRunning;
    delete reinterpret_cast<int*>(request);
  };
  return d;
}

// A communicator over the descriptor `make` builds from the "single" test
// plugin's header, as if that plugin's library held it.
std::unique_ptr<Communicator> commOver(dtb_backend_plugin_v1_t (*make)(const dtb_plugin_header_t&)) {
  PluginLoader loader(SearchPath({kTestPluginDir}));
  auto real = loader.load(PluginKind::kBackend, "single");
  auto library = std::make_shared<SharedLibrary>(real->path());
  auto plugin = std::make_shared<const LoadedPlugin>(library, PluginKind::kBackend, 1, make(real->header()),
                                                     std::vector<ParamSpec>{});
  return std::make_unique<Communicator>(createBackend(plugin, {}, oneRank()), 0, 1,
                                        std::chrono::milliseconds(10));
}

std::unique_ptr<Communicator> laggingComm() {
  lagging.ended = false;
  lagging.freed = 0;
  lagging.freedRunning = 0;
  return commOver(laggingBackend);
}

// Elastic training leaves a broken world in the same process: with
// holdTimedOut, no request is freed while its operation may still run — a
// timed-out wait keeps it, settleTimedOut and abandon watch it until it
// ends — and a strategy's later wait for an abandoned request is refused.
TEST(Communicator, ARankLeavingABrokenWorldFreesNoOperationStillRunning) {
  auto comm = laggingComm();
  comm->holdTimedOut(true);
  float value = 1;
  dtb_tensor_t buffer = dtb::hostTensor(&value, 1, DTB_DTYPE_F32);
  std::string error;
  dtb_request_t waited = nullptr, pending = nullptr;
  ASSERT_EQ(comm->allreduce(&buffer, DTB_REDUCE_SUM, &waited, &error), DTB_STATUS_OK);
  ASSERT_EQ(comm->allreduce(&buffer, DTB_REDUCE_SUM, &pending, &error), DTB_STATUS_OK);
  EXPECT_EQ(comm->wait(waited, DTB_TIMEOUT_DEFAULT, &error), DTB_STATUS_TIMEOUT);
  EXPECT_EQ(lagging.freed, 0) << "a timed-out request was freed while it may still run";
  EXPECT_FALSE(comm->settleTimedOut(std::chrono::milliseconds(20)));
  EXPECT_FALSE(comm->abandon(std::chrono::milliseconds(20)));
  EXPECT_EQ(lagging.freed, 0);
  std::thread ends([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    lagging.ended = true;
  });
  EXPECT_TRUE(comm->abandon(std::chrono::seconds(5)));
  ends.join();
  EXPECT_EQ(lagging.freed, 2);
  EXPECT_EQ(lagging.freedRunning, 0);
  EXPECT_EQ(comm->wait(pending, DTB_TIMEOUT_DEFAULT, &error), DTB_STATUS_INVALID_ARGUMENT);
}

// Without it (every run but an elastic one) a timed-out wait frees its
// request at once, as it always did: the process is about to end.
TEST(Communicator, ATimedOutWaitFreesItsRequestWhenNothingGoesOn) {
  auto comm = laggingComm();
  float value = 1;
  dtb_tensor_t buffer = dtb::hostTensor(&value, 1, DTB_DTYPE_F32);
  std::string error;
  dtb_request_t request = nullptr;
  ASSERT_EQ(comm->allreduce(&buffer, DTB_REDUCE_SUM, &request, &error), DTB_STATUS_OK);
  EXPECT_EQ(comm->wait(request, DTB_TIMEOUT_DEFAULT, &error), DTB_STATUS_TIMEOUT);
  EXPECT_EQ(lagging.freed, 1);
  EXPECT_TRUE(comm->settleTimedOut(std::chrono::milliseconds(1)));
}

// The host's wait guard (wait_guard.h): a backend told it may block in a
// wait (MPI running the collective in the caller) and stuck there past the
// wait's timeout and the grace is reported once, naming backend, rank,
// collective and timeout; a wait that returns in time never is.
std::atomic<bool> stuckReleased{false};

dtb_backend_plugin_v1_t stuckBackend(const dtb_plugin_header_t& header) {
  dtb_backend_plugin_v1_t d = laggingBackend(header);
  d.wait = [](void*, dtb_request_t, int64_t) {
    while (!stuckReleased) std::this_thread::sleep_for(std::chrono::milliseconds(1));  // ignores its timeout
    return DTB_STATUS_OK;
  };
  return d;
}

TEST(WaitGuard, AWaitStuckInTheBackendPastItsTimeoutIsReportedOnce) {
  stuckReleased = false;
  std::vector<std::string> reports;
  std::mutex reportsMutex;
  WaitGuard guard(std::chrono::milliseconds(50), std::chrono::milliseconds(5), [&](const std::string& m) {
    std::lock_guard lock(reportsMutex);
    reports.push_back(m);
    stuckReleased = true;  // a worker's handler ends the process instead
  });
  auto comm = commOver(stuckBackend);
  comm->guardWaits(guard);
  float value = 1;
  dtb_tensor_t buffer = dtb::hostTensor(&value, 1, DTB_DTYPE_F32);
  std::string error;
  dtb_request_t request = nullptr;
  ASSERT_EQ(comm->allreduce(&buffer, DTB_REDUCE_SUM, &request, &error), DTB_STATUS_OK);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(comm->wait(request, DTB_TIMEOUT_DEFAULT, &error), DTB_STATUS_OK);  // released by the report
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(60));  // timeout + grace
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  std::lock_guard lock(reportsMutex);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_NE(reports[0].find("on rank 0: a wait for allreduce is still inside the backend"), std::string::npos)
      << reports[0];
  EXPECT_NE(reports[0].find("after its 10 ms timeout"), std::string::npos) << reports[0];
}

TEST(WaitGuard, AWaitThatReturnsByItsTimeoutIsNeverReported) {
  std::atomic<int> reports{0};
  WaitGuard guard(std::chrono::milliseconds(20), std::chrono::milliseconds(2),
                  [&](const std::string&) { ++reports; });
  auto comm = laggingComm();  // its waits time out at once
  comm->guardWaits(guard);
  float value = 1;
  dtb_tensor_t buffer = dtb::hostTensor(&value, 1, DTB_DTYPE_F32);
  std::string error;
  for (int i = 0; i < 3; ++i) {
    dtb_request_t request = nullptr;
    ASSERT_EQ(comm->allreduce(&buffer, DTB_REDUCE_SUM, &request, &error), DTB_STATUS_OK);
    EXPECT_EQ(comm->wait(request, DTB_TIMEOUT_DEFAULT, &error), DTB_STATUS_TIMEOUT);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // five times the grace
  EXPECT_EQ(reports, 0);
  comm.reset();  // leaves the guard: it must not look at a freed watch
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

}  // namespace
}  // namespace dtb::core
