// Gloo backend failure paths: nothing waits forever, and errors say which
// rank and what happened.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>

#include "backend_test_support.h"

namespace dtb::testing {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

TEST(GlooBackend, RendezvousTimesOutWhenAPeerNeverComes) {
  TempDir store;
  core::PluginLoader loader(core::SearchPath({DTBENCH_PLUGIN_DIR}));
  auto plugin = loader.load(core::PluginKind::kBackend, "gloo");
  dtb_rendezvous_t rdv{};
  rdv.struct_size = sizeof(rdv);
  rdv.rank = 0;
  rdv.world_size = 2;  // rank 1 never starts
  const std::string path = store.path().string();
  rdv.store_path = path.c_str();
  rdv.prefix = "lonely";
  rdv.bind_address = "127.0.0.1";
  rdv.timeout_ms = 500;
  const auto start = Clock::now();
  try {
    core::createBackend(plugin, {}, rdv);
    FAIL() << "connected to a peer that does not exist";
  } catch (const core::PluginCallError& e) {
    EXPECT_EQ(e.status(), DTB_STATUS_TIMEOUT) << e.what();
    EXPECT_NE(std::string(e.what()).find("rank 0 could not connect to its 1 peers"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_LT(secondsSince(start), 10.0);
}

// On either mesh: 1024 floats go over the sync one (the thread reads the
// closed socket itself), 65536 over the async one.
TEST(GlooBackend, ADeadPeerFailsTheCollectiveInsteadOfHanging) {
  for (const size_t count : {size_t{1} << 16, size_t{1024}}) {
    const auto start = Clock::now();
    runRanks(
        "gloo", 2, {},
        [count](Rank& rank) {
          rank.run([&](dtb_request_t* r) { return rank.backend().barrier(rank.comm(), r); });
          if (rank.rank() == 1) {
            rank.leave();  // its sockets close, as a killed process's would
            return;
          }
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
          std::vector<float> data(count, 1.0f);
          dtb_tensor_t t = tensorOf(data.data(), data.size(), DTB_DTYPE_F32);
          dtb_request_t request = nullptr;
          ASSERT_EQ(rank.backend().allreduce(rank.comm(), &t, DTB_REDUCE_SUM, &request), DTB_STATUS_OK);
          const dtb_status_t status = rank.backend().wait(rank.comm(), request, 10000);
          rank.backend().request_free(rank.comm(), request);
          EXPECT_TRUE(status == DTB_STATUS_COMM_FAILURE || status == DTB_STATUS_TIMEOUT) << status;
          auto message = rank.instance().services().takeError();
          ASSERT_TRUE(message.has_value());
          EXPECT_NE(message->find("gloo: rank 0"), std::string::npos) << *message;
        },
        2000);
    EXPECT_LT(secondsSince(start), 15.0) << count << " floats";
  }
}

TEST(GlooBackend, WaitReturnsTimeoutWhileAPeerIsLate) {
  std::atomic<bool> timedOut{false};
  runRanks("gloo", 2, {}, [&](Rank& rank) {
    std::vector<float> data(64, 1.0f);
    dtb_tensor_t t = tensorOf(data.data(), data.size(), DTB_DTYPE_F32);
    dtb_request_t request = nullptr;
    if (rank.rank() == 1) {
      while (!timedOut) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_EQ(rank.backend().allreduce(rank.comm(), &t, DTB_REDUCE_SUM, &request), DTB_STATUS_OK);
    if (rank.rank() == 0) {
      EXPECT_EQ(rank.backend().wait(rank.comm(), request, 50), DTB_STATUS_TIMEOUT);
      EXPECT_NE(rank.instance().services().takeError()->find("not finished after 50 ms"), std::string::npos);
      timedOut = true;
    }
    // The late peer arrives: the same request then completes.
    rank.finish(request);
    EXPECT_EQ(data[0], 2.0f);
  });
}

TEST(GlooBackend, RefusesCudaMemoryAndBadRoots) {
  runRanks("gloo", 1, {}, [](Rank& rank) {
    float x = 0;
    dtb_tensor_t t = tensorOf(&x, 1, DTB_DTYPE_F32);
    t.device = {DTB_DEVICE_CUDA, 0};
    dtb_request_t request = nullptr;
    EXPECT_EQ(rank.backend().allreduce(rank.comm(), &t, DTB_REDUCE_SUM, &request), DTB_STATUS_UNSUPPORTED);
    EXPECT_NE(rank.instance().services().takeError()->find("host memory"), std::string::npos);
    t.device = {DTB_DEVICE_HOST, 0};
    EXPECT_EQ(rank.backend().broadcast(rank.comm(), &t, 3, &request), DTB_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(rank.instance().services().takeError()->find("root 3"), std::string::npos);
  });
}

// What elastic training needs of a backend (REBUILD): when a peer stops
// taking part, the survivors' collective times out, their communicator goes
// at once — the collectives queued behind it end at once too (Gloo closes a
// pair that timed out, so each fails at its first use instead of waiting out
// the timeout in turn) — and they meet again in the same process as a
// smaller world under a new prefix, where collectives work.
TEST(GlooBackend, SurvivorsAbandonTheBrokenCommunicatorAndMeetAgainWithoutTheHungPeer) {
  TempDir store;
  core::PluginLoader loader(core::SearchPath({DTBENCH_PLUGIN_DIR}));
  auto plugin = loader.load(core::PluginKind::kBackend, "gloo");
  ASSERT_TRUE(plugin->descriptor<dtb_backend_plugin_v1_t>().capabilities & DTB_BACKEND_CAP_REBUILD);
  const std::string path = store.path().string();
  auto rendezvous = [&](int rank, int world, const char* prefix) {
    return fileStoreRendezvous(rank, world, path.c_str(), prefix, 1000);
  };
  std::atomic<bool> survivorsDone{false};
  std::vector<double> teardownSeconds(2, -1);
  std::vector<float> rebuiltSums(2, 0);
  auto runRank = [&](int r) {
    try {
      Rank rank(core::createBackend(plugin, {}, rendezvous(r, 3, "generation0")), r, 3);
      rank.run([&](dtb_request_t* req) { return rank.backend().barrier(rank.comm(), req); });
      if (r == 2) {  // hangs: alive, connected, never joins again
        while (!survivorsDone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        return;
      }
      constexpr int kQueued = 6;
      std::vector<std::vector<float>> data(kQueued, std::vector<float>(1024, 1.0f));
      std::vector<dtb_tensor_t> tensors(kQueued);
      std::vector<dtb_request_t> requests(kQueued);
      for (int k = 0; k < kQueued; ++k) {
        tensors[k] = tensorOf(data[k].data(), data[k].size(), DTB_DTYPE_F32);
        ASSERT_EQ(rank.backend().allreduce(rank.comm(), &tensors[k], DTB_REDUCE_SUM, &requests[k]),
                  DTB_STATUS_OK);
      }
      EXPECT_EQ(rank.backend().wait(rank.comm(), requests[0], 30000), DTB_STATUS_TIMEOUT);
      for (dtb_request_t request : requests) rank.backend().request_free(rank.comm(), request);
      const auto start = Clock::now();
      rank.leave();
      teardownSeconds[r] = secondsSince(start);
      // The survivors as ranks 0 and 1 of a world of 2.
      Rank again(core::createBackend(plugin, {}, rendezvous(r, 2, "generation1")), r, 2);
      float x = static_cast<float>(r + 1);
      dtb_tensor_t t = tensorOf(&x, 1, DTB_DTYPE_F32);
      again.run([&](dtb_request_t* req) {
        return again.backend().allreduce(again.comm(), &t, DTB_REDUCE_SUM, req);
      });
      rebuiltSums[r] = x;
      again.run([&](dtb_request_t* req) { return again.backend().barrier(again.comm(), req); });
    } catch (const std::exception& e) {
      ADD_FAILURE() << "rank " << r << ": " << e.what();
    }
  };
  std::vector<std::thread> threads;
  for (int r = 0; r < 3; ++r) threads.emplace_back(runRank, r);
  threads[0].join();
  threads[1].join();
  survivorsDone = true;
  threads[2].join();
  for (int r = 0; r < 2; ++r) {
    // 5 queued collectives run into the 1 s timeout one after another would
    // take 5 s; at once is milliseconds (3 s leaves room for a loaded machine).
    EXPECT_GE(teardownSeconds[r], 0.0) << "rank " << r;
    EXPECT_LT(teardownSeconds[r], 3.0) << "rank " << r << " ran what was queued into the timeout";
    EXPECT_EQ(rebuiltSums[r], 3.0f) << "rank " << r;
  }
}

// Sync mode runs small all-reduces on a second mesh of pairs in sync mode
// and the rest on the first: both give the sums, in any order, on the
// caller's thread (guarded waits) or the worker's, and alike on every rank.
TEST(GlooBackend, SyncModeSumsAllReducesAboveAndBelowItsLimitInIssueOrder) {
  for (const int64_t guard : {int64_t{0}, int64_t{2000}}) {
    runRanks(
        "gloo", 2, {{"mode", std::string("sync")}, {"sync_max_bytes", int64_t{4096}}},
        [](Rank& rank) {
          // 1024 floats fit the limit (4096 bytes); 1025 do not. Issued
          // before any is waited for, so that both meshes carry some at once.
          std::vector<std::vector<float>> data;
          for (size_t count : {1024, 1025, 7, 100000, 1024}) data.emplace_back(count, 1.0f + rank.rank());
          std::vector<dtb_request_t> requests;
          for (auto& d : data) {
            dtb_tensor_t t = tensorOf(d.data(), d.size(), DTB_DTYPE_F32);
            requests.push_back(nullptr);
            ASSERT_EQ(rank.backend().allreduce(rank.comm(), &t, DTB_REDUCE_SUM, &requests.back()),
                      DTB_STATUS_OK);
          }
          for (dtb_request_t r : requests) {
            EXPECT_EQ(rank.backend().wait(rank.comm(), r, 20000), DTB_STATUS_OK);
            rank.backend().request_free(rank.comm(), r);
          }
          for (const auto& d : data) {
            for (float v : d) ASSERT_EQ(v, 3.0f) << "count " << d.size();
          }
        },
        20000, guard);
  }
}

// A sync limit this host's sockets cannot take is refused by name, before
// any rank could block another.
TEST(GlooBackend, SyncModeRefusesALimitAboveTheHostsSocketBuffers) {
  TempDir store;
  core::PluginLoader loader(core::SearchPath({DTBENCH_PLUGIN_DIR}));
  auto plugin = loader.load(core::PluginKind::kBackend, "gloo");
  const std::string path = store.path().string();
  dtb_rendezvous_t rdv = fileStoreRendezvous(0, 2, path.c_str(), "big", 500);
  try {
    core::createBackend(plugin, {{"sync_max_bytes", int64_t{1} << 40}}, rdv);
    FAIL() << "a 1 TiB sync limit was taken";
  } catch (const core::PluginCallError& e) {
    EXPECT_EQ(e.status(), DTB_STATUS_INVALID_ARGUMENT) << e.what();
    EXPECT_NE(std::string(e.what()).find("net.core.wmem_max"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace dtb::testing
