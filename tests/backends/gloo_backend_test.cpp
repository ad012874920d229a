// Gloo backend failure paths: nothing waits forever, and errors say which
// rank and what happened.
#include <gtest/gtest.h>

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

TEST(GlooBackend, ADeadPeerFailsTheCollectiveInsteadOfHanging) {
  const auto start = Clock::now();
  runRanks(
      "gloo", 2, {},
      [](Rank& rank) {
        rank.run([&](dtb_request_t* r) { return rank.backend().barrier(rank.comm(), r); });
        if (rank.rank() == 1) {
          rank.leave();  // its sockets close, as a killed process's would
          return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        std::vector<float> data(1 << 16, 1.0f);
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
  EXPECT_LT(secondsSince(start), 15.0);
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

}  // namespace
}  // namespace dtb::testing
