// MPI backend failure paths: a process mpirun did not start gets told how to
// start it, and a collective a peer never joins times out instead of hanging,
// after which the communicator refuses work. The second test runs under
// `mpirun -np 2` (ctest: mpi_backend.peer_skips_a_collective, through
// mpi_backend_test.sh, since mpirun itself fails a job whose rank abandoned MPI).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "backend_test_support.h"

namespace dtb::testing {
namespace {

dtb_rendezvous_t rendezvous(int rank, int world, int64_t timeoutMs) {
  // MPI rendezvouses through its launcher, not a store.
  return fileStoreRendezvous(rank, world, "/nonexistent", "mpi", timeoutMs);
}

TEST(MpiBackend, AProcessNotStartedByMpirunIsToldHowToStartIt) {
  if (mpiWorld() != 0) GTEST_SKIP() << "outside mpirun only";
  core::PluginLoader loader(core::SearchPath({DTBENCH_PLUGIN_DIR}));
  auto plugin = loader.load(core::PluginKind::kBackend, "mpi");
  try {
    core::createBackend(plugin, {}, rendezvous(0, 2, 1000));
    FAIL() << "a world of 2 without mpirun";
  } catch (const core::PluginCallError& e) {
    EXPECT_EQ(e.status(), DTB_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("launcher = \"mpirun\""), std::string::npos) << e.what();
  }
}

TEST(MpiBackend, ACollectiveAPeerSkipsTimesOutThenTheCommunicatorRefusesWork) {
  if (mpiWorld() != 2) GTEST_SKIP() << "run under mpirun -np 2 (tests/backends/mpi_backend_test.sh)";
  core::PluginLoader loader(core::SearchPath({DTBENCH_PLUGIN_DIR}));
  auto plugin = loader.load(core::PluginKind::kBackend, "mpi");
  const int rank = mpiRank();
  auto instance = core::createBackend(plugin, {}, rendezvous(rank, 2, 1000));
  const auto& api = instance->plugin().descriptor<dtb_backend_plugin_v1_t>();
  if (rank == 1) {  // never joins; stays alive past rank 0's timeout
    std::this_thread::sleep_for(std::chrono::milliseconds(2000));
    return;
  }
  std::vector<float> data(1024, 1.0f);
  dtb_tensor_t t = tensorOf(data.data(), data.size(), DTB_DTYPE_F32);
  dtb_request_t request = nullptr;
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(api.allreduce(instance->context(), &t, DTB_REDUCE_SUM, &request), DTB_STATUS_OK);
  // Queued behind the stuck one: it must not wait for it forever either.
  std::vector<float> gathered(2 * data.size());
  dtb_tensor_t all = tensorOf(gathered.data(), gathered.size(), DTB_DTYPE_F32);
  dtb_request_t behind = nullptr;
  ASSERT_EQ(api.allgather(instance->context(), &t, &all, &behind), DTB_STATUS_OK);
  const dtb_status_t status = api.wait(instance->context(), request, 30000);
  api.request_free(instance->context(), request);
  EXPECT_EQ(status, DTB_STATUS_TIMEOUT);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 20.0);
  const auto error = instance->services().takeError();
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find("rank 0"), std::string::npos) << *error;
  EXPECT_NE(error->find("not finished after 1000 ms"), std::string::npos) << *error;
  EXPECT_EQ(api.barrier(instance->context(), &request), DTB_STATUS_COMM_FAILURE);
  EXPECT_NE(instance->services().takeError()->find("unusable"), std::string::npos);
  const auto queued = std::chrono::steady_clock::now();
  EXPECT_EQ(api.wait(instance->context(), behind, 30000), DTB_STATUS_TIMEOUT);
  api.request_free(instance->context(), behind);
  EXPECT_NE(instance->services().takeError()->find("abandoned"), std::string::npos);
  // And the communicator goes at once, its thread left inside MPI.
  instance.reset();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - queued).count(), 2.0);
  // Rank 0 leaves without MPI_Finalize, and mpirun then ends the job: let
  // rank 1 report first.
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
}

}  // namespace
}  // namespace dtb::testing
