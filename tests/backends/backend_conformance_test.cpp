// Every backend against a naive reference: each collective, over world sizes
// 1-4, odd and zero sizes, dtypes and reduce ops. Add a backend to cases()
// and it must pass the same suite. The MPI cases run when mpirun starts this
// binary (ctest's backend_conformance.mpi_world<N> tests do), one case for
// the job's size; outside mpirun there is none. The NCCL cases run where
// there is a GPU per rank and skip, saying so, where there is not.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <thread>

#include "backend_test_support.h"
#include "cuda/cuda_probe.h"
#include "dtbench/half.hpp"

namespace dtb::testing {
namespace {

// Rank r's i-th element: small integers, exact in every dtype.
template <typename T>
T valueAt(int rank, size_t i) {
  return static_cast<T>((rank + 1) * static_cast<int>(i % 13 + 1));
}

template <typename T>
T reference(dtb_reduce_op_t op, int world, size_t i) {
  T acc = valueAt<T>(0, i);
  for (int r = 1; r < world; ++r) {
    const T v = valueAt<T>(r, i);
    switch (op) {
      case DTB_REDUCE_SUM:
      case DTB_REDUCE_AVG:
        acc = static_cast<T>(acc + v);
        break;
      case DTB_REDUCE_MAX:
        acc = std::max(acc, v);
        break;
      case DTB_REDUCE_MIN:
        acc = std::min(acc, v);
        break;
      case DTB_REDUCE_BAND:
        if constexpr (std::is_integral_v<T>) acc = static_cast<T>(acc & v);
        break;
    }
  }
  if (op == DTB_REDUCE_AVG) acc = static_cast<T>(acc / static_cast<T>(world));
  return acc;
}

template <typename T>
dtb_dtype_t dtypeOf() {
  if constexpr (std::is_same_v<T, float>) return DTB_DTYPE_F32;
  if constexpr (std::is_same_v<T, double>) return DTB_DTYPE_F64;
  if constexpr (std::is_same_v<T, int32_t>) return DTB_DTYPE_I32;
  return DTB_DTYPE_I64;
}

struct Case {
  const char* backend;
  const char* algorithm;  // "" for backends without one
  int world;
  // The rendezvous' wait_guard_ms: nonzero tells the backend the host
  // guards its waits (MPI and Gloo then run a waited-for collective in the
  // caller).
  int64_t waitGuardMs = 0;
  const char* mode = "";  // gloo's; "" for its default (sync)
};

std::string variant(const Case& c) {
  std::string name = *c.algorithm ? c.algorithm : "default";
  if (*c.mode) name += std::string("_") + c.mode;
  if (c.waitGuardMs > 0) name = (*c.algorithm || *c.mode ? name + "_" : std::string()) + "guarded";
  return name;
}

void PrintTo(const Case& c, std::ostream* out) {
  *out << c.backend << " " << variant(c) << " world " << c.world;
}

std::string caseName(const ::testing::TestParamInfo<Case>& info) {
  return std::string(info.param.backend) + "_" + variant(info.param) + "_world" +
         std::to_string(info.param.world);
}

class BackendConformance : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    if (std::string(GetParam().backend) == "nccl") {
      const core::CudaProbe gpus = core::probeCuda();
      if (gpus.devices.size() < static_cast<size_t>(GetParam().world)) {
        GTEST_SKIP() << "nccl at world " << GetParam().world << " needs a GPU per rank; "
                     << (gpus.devices.empty() ? "no GPU is usable here (" + gpus.problem + ")"
                                              : std::to_string(gpus.devices.size()) + " visible");
      }
    }
    if (ranksAreProcesses(GetParam().backend) && mpiWorld() != GetParam().world) {
      GTEST_SKIP() << GetParam().backend << " ranks are processes: run under mpirun -np " << GetParam().world
                   << " (ctest's backend_conformance." << GetParam().backend << "_world" << GetParam().world
                   << ")";
    }
  }
  core::ParamValues params() const {
    core::ParamValues values;
    if (*GetParam().algorithm) values["algorithm"] = std::string(GetParam().algorithm);
    if (*GetParam().mode) values["mode"] = std::string(GetParam().mode);
    return values;
  }
  void run(const std::function<void(Rank&)>& body) {
    runRanks(GetParam().backend, GetParam().world, params(), body, 20000, GetParam().waitGuardMs);
  }
};

const size_t kCounts[] = {0, 1, 7, 1023, 4099};

template <typename T>
void allreduceAll(Rank& rank, dtb_reduce_op_t op) {
  for (size_t count : kCounts) {
    std::vector<T> data(count);
    for (size_t i = 0; i < count; ++i) data[i] = valueAt<T>(rank.rank(), i);
    dtb_tensor_t t = rank.tensor(data.data(), count, dtypeOf<T>());
    rank.run([&](dtb_request_t* r) { return rank.backend().allreduce(rank.comm(), &t, op, r); });
    for (size_t i = 0; i < count; ++i) {
      ASSERT_EQ(data[i], reference<T>(op, rank.world(), i))
          << "op " << op << " count " << count << " i " << i;
    }
  }
}

TEST_P(BackendConformance, AllreduceEveryOpAndDtype) {
  const bool legacy = std::string(GetParam().algorithm) == "ring_chunked" ||
                      std::string(GetParam().algorithm) == "halving_doubling";
  run([&](Rank& rank) {
    for (dtb_reduce_op_t op : {DTB_REDUCE_SUM, DTB_REDUCE_AVG, DTB_REDUCE_MAX, DTB_REDUCE_MIN}) {
      allreduceAll<float>(rank, op);
      allreduceAll<double>(rank, op);
      if (op != DTB_REDUCE_AVG) allreduceAll<int32_t>(rank, op);
    }
    if (std::string(GetParam().backend) != "nccl") allreduceAll<int64_t>(rank, DTB_REDUCE_BAND);
    if (legacy) allreduceAll<int32_t>(rank, DTB_REDUCE_BAND);
  });
}

// fp16 and bf16 (mixed precision's and the gradient compression hooks'
// dtypes): sums, averages and extremes of values every format holds exactly
// come out exact — over Gloo on its sync mesh too (the legacy classes; the
// mode's default), where these small all-reduces run.
TEST_P(BackendConformance, HalfPrecisionAllreduceAddsInFloat) {
  if (std::string(GetParam().backend) == "single") return;  // 32/64-bit only there
  run([&](Rank& rank) {
    for (dtb_dtype_t dtype : {DTB_DTYPE_F16, DTB_DTYPE_BF16}) {
      for (dtb_reduce_op_t op : {DTB_REDUCE_SUM, DTB_REDUCE_AVG, DTB_REDUCE_MAX, DTB_REDUCE_MIN}) {
        const auto to = dtype == DTB_DTYPE_F16 ? dtb::floatToHalf : dtb::floatToBfloat16;
        const auto from = dtype == DTB_DTYPE_F16 ? dtb::halfToFloat : dtb::bfloat16ToFloat;
        std::vector<uint16_t> data(1023);
        for (size_t i = 0; i < data.size(); ++i)
          data[i] = to(static_cast<float>(rank.rank() + 1) * 0.5f * (i % 4));
        dtb_tensor_t t = rank.tensor(data.data(), data.size(), dtype);
        rank.run([&](dtb_request_t* r) { return rank.backend().allreduce(rank.comm(), &t, op, r); });
        const int n = rank.world();
        for (size_t i = 0; i < data.size(); ++i) {
          const float sum = 0.5f * (i % 4) * n * (n + 1) / 2.0f, max = 0.5f * (i % 4) * n,
                      min = 0.5f * (i % 4);
          const float expected = op == DTB_REDUCE_SUM   ? sum
                                 : op == DTB_REDUCE_AVG ? sum / n
                                 : op == DTB_REDUCE_MAX ? max
                                                        : min;
          ASSERT_EQ(from(data[i]), from(to(expected))) << dtypeName(dtype) << " op " << op << " i " << i;
        }
      }
    }
  });
}

TEST_P(BackendConformance, ReduceScatterGivesEachRankItsBlock) {
  run([&](Rank& rank) {
    const int world = rank.world();
    for (size_t count : kCounts) {
      std::vector<float> input(count * world), output(count, -1.0f);
      for (size_t i = 0; i < input.size(); ++i) input[i] = valueAt<float>(rank.rank(), i);
      const std::vector<float> before = input;
      dtb_tensor_t in = rank.tensor(input.data(), input.size(), DTB_DTYPE_F32);
      dtb_tensor_t out = rank.tensor(output.data(), count, DTB_DTYPE_F32);
      rank.run([&](dtb_request_t* r) {
        return rank.backend().reduce_scatter(rank.comm(), &in, &out, DTB_REDUCE_AVG, r);
      });
      for (size_t i = 0; i < count; ++i) {
        ASSERT_FLOAT_EQ(output[i], reference<float>(DTB_REDUCE_AVG, world, rank.rank() * count + i))
            << "count " << count << " i " << i;
      }
      ASSERT_EQ(input, before) << "reduce-scatter changed its input";
    }
  });
}

TEST_P(BackendConformance, AllgatherConcatenatesInRankOrder) {
  run([&](Rank& rank) {
    for (size_t count : kCounts) {
      std::vector<int32_t> input(count), output(count * rank.world(), -1);
      for (size_t i = 0; i < count; ++i) input[i] = valueAt<int32_t>(rank.rank(), i);
      dtb_tensor_t in = rank.tensor(input.data(), count, DTB_DTYPE_I32);
      dtb_tensor_t out = rank.tensor(output.data(), output.size(), DTB_DTYPE_I32);
      rank.run([&](dtb_request_t* r) { return rank.backend().allgather(rank.comm(), &in, &out, r); });
      for (int r = 0; r < rank.world(); ++r) {
        for (size_t i = 0; i < count; ++i) ASSERT_EQ(output[r * count + i], valueAt<int32_t>(r, i));
      }
    }
  });
}

// Blocks over a backend's working chunk (Gloo's ring reduce-scatter runs 4
// MiB at a time) and not a multiple of it: every chunk lands in its place.
TEST_P(BackendConformance, ReduceScatterOfBlocksLargerThanAChunk) {
  run([&](Rank& rank) {
    const int world = rank.world();
    const size_t count = (size_t{5} << 20) / sizeof(float) + 3;
    std::vector<float> input(count * world), output(count, -1.0f);
    for (size_t i = 0; i < input.size(); ++i) input[i] = valueAt<float>(rank.rank(), i % 4099);
    dtb_tensor_t in = rank.tensor(input.data(), input.size(), DTB_DTYPE_F32);
    dtb_tensor_t out = rank.tensor(output.data(), count, DTB_DTYPE_F32);
    rank.run([&](dtb_request_t* r) {
      return rank.backend().reduce_scatter(rank.comm(), &in, &out, DTB_REDUCE_SUM, r);
    });
    for (size_t i = 0; i < count; ++i) {
      ASSERT_FLOAT_EQ(output[i], reference<float>(DTB_REDUCE_SUM, world, (rank.rank() * count + i) % 4099))
          << "i " << i;
    }
  });
}

// In place, as ZeRO gathers its parameters back and NCCL allows: the input
// is this rank's own block of the output.
TEST_P(BackendConformance, AllgatherInPlace) {
  run([&](Rank& rank) {
    for (size_t count : kCounts) {
      std::vector<int32_t> output(count * rank.world(), -1);
      for (size_t i = 0; i < count; ++i) output[rank.rank() * count + i] = valueAt<int32_t>(rank.rank(), i);
      dtb_tensor_t out = rank.tensor(output.data(), output.size(), DTB_DTYPE_I32);
      dtb_tensor_t in = rank.tensor(output.data() + rank.rank() * count, count, DTB_DTYPE_I32);
      rank.run([&](dtb_request_t* r) { return rank.backend().allgather(rank.comm(), &in, &out, r); });
      for (int r = 0; r < rank.world(); ++r) {
        for (size_t i = 0; i < count; ++i) ASSERT_EQ(output[r * count + i], valueAt<int32_t>(r, i));
      }
    }
  });
}

TEST_P(BackendConformance, BroadcastFromEveryRoot) {
  run([&](Rank& rank) {
    for (int root = 0; root < rank.world(); ++root) {
      std::vector<double> data(1023);
      for (size_t i = 0; i < data.size(); ++i) data[i] = valueAt<double>(rank.rank(), i);
      dtb_tensor_t t = rank.tensor(data.data(), data.size(), DTB_DTYPE_F64);
      rank.run([&](dtb_request_t* r) { return rank.backend().broadcast(rank.comm(), &t, root, r); });
      for (size_t i = 0; i < data.size(); ++i) ASSERT_EQ(data[i], valueAt<double>(root, i));
    }
  });
}

TEST_P(BackendConformance, ManyRequestsInFlightCompleteInOrder) {
  run([&](Rank& rank) {
    constexpr int kInFlight = 16;
    std::vector<std::vector<float>> buffers(kInFlight, std::vector<float>(257));
    std::vector<dtb_tensor_t> tensors(kInFlight);
    std::vector<dtb_request_t> requests(kInFlight);
    for (int k = 0; k < kInFlight; ++k) {
      for (size_t i = 0; i < buffers[k].size(); ++i) buffers[k][i] = valueAt<float>(rank.rank(), i + k);
      tensors[k] = rank.tensor(buffers[k].data(), buffers[k].size(), DTB_DTYPE_F32);
      rank.instance().check("allreduce",
                            rank.backend().allreduce(rank.comm(), &tensors[k], DTB_REDUCE_SUM, &requests[k]));
    }
    dtb_request_t barrier = nullptr;
    rank.instance().check("barrier", rank.backend().barrier(rank.comm(), &barrier));
    for (int k = kInFlight - 1; k >= 0; --k) rank.finish(requests[k]);  // any wait order
    rank.finish(barrier);
    for (int k = 0; k < kInFlight; ++k) {
      for (size_t i = 0; i < buffers[k].size(); ++i) {
        ASSERT_EQ(buffers[k][i], reference<float>(DTB_REDUCE_SUM, rank.world(), i + k));
      }
    }
  });
}

// Overlap: a collective nobody waits for yet still runs, while the caller
// goes on with other work (here: sleeping and testing now and then).
TEST_P(BackendConformance, ARequestNobodyWaitsForEndsOnItsOwn) {
  run([&](Rank& rank) {
    std::vector<float> data(4099);
    for (size_t i = 0; i < data.size(); ++i) data[i] = valueAt<float>(rank.rank(), i);
    dtb_tensor_t t = rank.tensor(data.data(), data.size(), DTB_DTYPE_F32);
    dtb_request_t request = nullptr;
    rank.instance().check("allreduce", rank.backend().allreduce(rank.comm(), &t, DTB_REDUCE_SUM, &request));
    int32_t done = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      rank.instance().check("test", rank.backend().test(rank.comm(), request, &done));
    }
    EXPECT_EQ(done, 1) << "not done 10 s after it was issued, with nobody waiting for it";
    rank.finish(request);
    for (size_t i = 0; i < data.size(); ++i)
      ASSERT_EQ(data[i], reference<float>(DTB_REDUCE_SUM, rank.world(), i));
  });
}

TEST_P(BackendConformance, CountersCountCollectives) {
  run([&](Rank& rank) {
    if (!rank.backend().counters) return;  // optional: the host counts for such backends
    std::vector<float> data(1000, 1.0f);
    dtb_tensor_t t = rank.tensor(data.data(), data.size(), DTB_DTYPE_F32);
    rank.run([&](dtb_request_t* r) { return rank.backend().allreduce(rank.comm(), &t, DTB_REDUCE_SUM, r); });
    dtb_comm_counters_t c{};
    c.struct_size = sizeof(c);
    ASSERT_EQ(rank.backend().counters(rank.comm(), &c), DTB_STATUS_OK);
    EXPECT_EQ(c.collectives, 1u);
    const int n = rank.world();
    EXPECT_EQ(c.bytes_sent, n > 1 ? 2u * 4000 * (n - 1) / n : 0u);  // ring: 2 (n-1)/n of S
  });
}

TEST_P(BackendConformance, RejectsMismatchedShapesAtOnce) {
  run([&](Rank& rank) {
    std::vector<float> in(10), out(3);
    dtb_tensor_t a = rank.tensor(in.data(), in.size(), DTB_DTYPE_F32);
    dtb_tensor_t b = rank.tensor(out.data(), out.size(), DTB_DTYPE_F32);
    dtb_request_t request = nullptr;
    if (rank.world() != 1) {
      EXPECT_EQ(rank.backend().reduce_scatter(rank.comm(), &a, &b, DTB_REDUCE_SUM, &request),
                DTB_STATUS_INVALID_ARGUMENT);
      EXPECT_TRUE(rank.instance().services().takeError().has_value());
    }
    if (std::string(GetParam().backend) == "single") return;  // dtype support differs by backend
    dtb_tensor_t floats = rank.tensor(in.data(), in.size(), DTB_DTYPE_F32);
    EXPECT_EQ(rank.backend().allreduce(rank.comm(), &floats, DTB_REDUCE_BAND, &request),
              DTB_STATUS_UNSUPPORTED);
    EXPECT_NE(rank.instance().services().takeError()->find("f32"), std::string::npos);
  });
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (int world = 1; world <= 4; ++world) {
    for (const char* algorithm : {"auto", "ring", "bcube", "ring_chunked", "halving_doubling"}) {
      out.push_back({"gloo", algorithm, world});
    }
  }
  // Gloo's other modes (the default is sync: the all-reduces its legacy
  // classes take run on the sync mesh), and callers running their collectives.
  for (int world = 2; world <= 3; ++world) {
    for (const char* mode : {"async", "busy_poll"}) {
      for (const char* algorithm : {"auto", "halving_doubling"})
        out.push_back({"gloo", algorithm, world, 0, mode});
    }
    out.push_back({"gloo", "auto", world, 2000});
    out.push_back({"gloo", "auto", world, 2000, "async"});
  }
  // MPI: the one world this process's mpirun job has (none outside mpirun),
  // with waits unguarded (collectives run on the backend's thread) and
  // guarded (a waited-for one runs in the caller).
  if (mpiWorld() > 0) {
    out.push_back({"mpi", "", mpiWorld()});
    out.push_back({"mpi", "", mpiWorld(), 2000});
  }
  out.push_back({"single", "", 1});
#ifdef DTBENCH_HAVE_NCCL
  for (int world : {1, 2, 4}) out.push_back({"nccl", "", world});  // skipped without a GPU per rank
#endif
  return out;
}

INSTANTIATE_TEST_SUITE_P(Backends, BackendConformance, ::testing::ValuesIn(cases()), caseName);

}  // namespace
}  // namespace dtb::testing
