// What the communicator counts for every collective, defined once,
// nccl-tests' way (communicator.h): `bytes` is the collective's data size S
// — an all-reduce's or broadcast's buffer, a reduce-scatter's input and an
// all-gather's output (every rank's block, this rank's own included) — and
// `busBytes` what a rank sends in a bandwidth-optimal ring algorithm, S
// times the op's bus factor, rounded to the byte. Over world sizes 1 to 8,
// one kind of collective at a time.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "dtbench/plugin.hpp"
#include "host/communicator.h"
#include "plugin/loader.h"

namespace dtb::core {
namespace {

// A backend whose every operation is done at once and moves nothing: only
// the host's counting is under test.
dtb_status_t done(dtb_request_t* request) {
  *request = reinterpret_cast<dtb_request_t>(new int);
  return DTB_STATUS_OK;
}

dtb_backend_plugin_v1_t instantBackend(const dtb_plugin_header_t& header) {
  dtb_backend_plugin_v1_t d{};
  d.header = header;
  d.capabilities = DTB_BACKEND_CAP_HOST_MEMORY;
  d.create = [](const dtb_host_t*, const dtb_rendezvous_t*, void** out) {
    static int context;
    *out = &context;
    return DTB_STATUS_OK;
  };
  d.destroy = [](void*) {};
  d.allreduce = [](void*, dtb_tensor_t*, dtb_reduce_op_t, dtb_request_t* r) { return done(r); };
  d.reduce_scatter = [](void*, const dtb_tensor_t*, dtb_tensor_t*, dtb_reduce_op_t, dtb_request_t* r) {
    return done(r);
  };
  d.allgather = [](void*, const dtb_tensor_t*, dtb_tensor_t*, dtb_request_t* r) { return done(r); };
  d.broadcast = [](void*, dtb_tensor_t*, int32_t, dtb_request_t* r) { return done(r); };
  d.barrier = [](void*, dtb_request_t* r) { return done(r); };
  d.test = [](void*, dtb_request_t, int32_t* finished) {
    *finished = 1;
    return DTB_STATUS_OK;
  };
  d.wait = [](void*, dtb_request_t, int64_t) { return DTB_STATUS_OK; };
  d.request_free = [](void*, dtb_request_t request) { delete reinterpret_cast<int*>(request); };
  return d;
}

// Rank 0 of a world of `world` ranks over the instant backend (borrowing the
// "single" test plugin's library and header).
std::unique_ptr<Communicator> rankZeroOf(int world) {
  PluginLoader loader(SearchPath({std::filesystem::path(DTBENCH_TEST_PLUGIN_DIR)}));
  auto real = loader.load(PluginKind::kBackend, "single");
  auto library = std::make_shared<SharedLibrary>(real->path());
  auto plugin = std::make_shared<const LoadedPlugin>(
      library, PluginKind::kBackend, 1, instantBackend(real->header()), std::vector<ParamSpec>{});
  dtb_rendezvous_t rdv{};
  rdv.struct_size = sizeof(rdv);
  rdv.world_size = 1;
  rdv.timeout_ms = 1000;
  return std::make_unique<Communicator>(createBackend(plugin, {}, rdv), 0, world,
                                        std::chrono::milliseconds(1000));
}

struct Counted {
  uint64_t collectives, bytes, busBytes;
};

// What one collective, issued and waited for, added to each counter.
template <typename Issue>
Counted countsOf(Communicator& comm, Issue&& issue) {
  const Counted before{comm.collectives(), comm.bytes(), comm.busBytes()};
  dtb_request_t request = nullptr;
  std::string error;
  EXPECT_EQ(issue(&request, &error), DTB_STATUS_OK) << error;
  EXPECT_EQ(comm.wait(request, DTB_TIMEOUT_DEFAULT, &error), DTB_STATUS_OK) << error;
  return {comm.collectives() - before.collectives, comm.bytes() - before.bytes,
          comm.busBytes() - before.busBytes};
}

TEST(CommunicatorCounts, EachCollectiveCountsItsDataSizeAndBusBytesAsNcclTestsDo) {
  constexpr uint64_t kBlock = 250;  // floats: a 1000-byte block per rank
  for (int n : {1, 2, 3, 4, 5, 8}) {
    SCOPED_TRACE("world size " + std::to_string(n));
    auto comm = rankZeroOf(n);
    const uint64_t ranks = static_cast<uint64_t>(n);
    std::vector<float> whole(kBlock * ranks), block(kBlock), buffer(750);  // a 3000-byte buffer

    // All-reduce: S is the buffer; bus bytes S x 2(n-1)/n (3000 at 3 ranks: 4000 exactly).
    dtb_tensor_t b = dtb::hostTensor(buffer.data(), buffer.size(), DTB_DTYPE_F32);
    Counted c = countsOf(
        *comm, [&](dtb_request_t* r, std::string* e) { return comm->allreduce(&b, DTB_REDUCE_SUM, r, e); });
    EXPECT_EQ(c.collectives, 1u);
    EXPECT_EQ(c.bytes, 3000u);
    EXPECT_EQ(c.busBytes, (2 * 3000 * (ranks - 1) + ranks / 2) / ranks) << "allreduce";

    // Reduce-scatter: S is the whole input, every rank's block; S x (n-1)/n.
    dtb_tensor_t in = dtb::hostTensor(whole.data(), whole.size(), DTB_DTYPE_F32);
    dtb_tensor_t out = dtb::hostTensor(block.data(), block.size(), DTB_DTYPE_F32);
    c = countsOf(*comm, [&](dtb_request_t* r, std::string* e) {
      return comm->reduceScatter(&in, &out, DTB_REDUCE_SUM, r, e);
    });
    EXPECT_EQ(c.collectives, 1u);
    EXPECT_EQ(c.bytes, 1000 * ranks) << "reduce_scatter";
    EXPECT_EQ(c.busBytes, 1000 * (ranks - 1)) << "reduce_scatter: the blocks this rank sends";

    // All-gather: S is the whole output, this rank's own block included
    // (which it never sends); the bus bytes leave it out: S x (n-1)/n.
    dtb_tensor_t mine = dtb::hostTensor(block.data(), block.size(), DTB_DTYPE_F32);
    dtb_tensor_t all = dtb::hostTensor(whole.data(), whole.size(), DTB_DTYPE_F32);
    c = countsOf(*comm, [&](dtb_request_t* r, std::string* e) { return comm->allgather(&mine, &all, r, e); });
    EXPECT_EQ(c.collectives, 1u);
    EXPECT_EQ(c.bytes, 1000 * ranks) << "allgather";
    EXPECT_EQ(c.busBytes, 1000 * (ranks - 1)) << "allgather: the other ranks' blocks";

    // Broadcast: S is the buffer, and so are its bus bytes (none at one rank).
    c = countsOf(*comm, [&](dtb_request_t* r, std::string* e) { return comm->broadcast(&b, 0, r, e); });
    EXPECT_EQ(c.collectives, 1u);
    EXPECT_EQ(c.bytes, 3000u);
    EXPECT_EQ(c.busBytes, n > 1 ? 3000u : 0u) << "broadcast";

    // A barrier is a collective that moves no data.
    c = countsOf(*comm, [&](dtb_request_t* r, std::string* e) { return comm->barrier(r, e); });
    EXPECT_EQ(c.collectives, 1u);
    EXPECT_EQ(c.bytes, 0u);
    EXPECT_EQ(c.busBytes, 0u);
  }
}

// A collective the backend refused counts nothing.
TEST(CommunicatorCounts, ARefusedCollectiveCountsNothing) {
  auto comm = rankZeroOf(2);
  std::vector<float> buffer(4);
  dtb_tensor_t b = dtb::hostTensor(buffer.data(), buffer.size(), DTB_DTYPE_F32);
  b.device.type = DTB_DEVICE_CUDA;  // host memory only: refused before the backend
  dtb_request_t request = nullptr;
  std::string error;
  EXPECT_NE(comm->allreduce(&b, DTB_REDUCE_SUM, &request, &error), DTB_STATUS_OK);
  EXPECT_EQ(comm->collectives(), 0u);
  EXPECT_EQ(comm->bytes(), 0u);
  EXPECT_EQ(comm->busBytes(), 0u);
}

}  // namespace
}  // namespace dtb::core
