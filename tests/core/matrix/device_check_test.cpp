// Where a cell may train, decided at plan time without a GPU: every refusal
// of device_check.h on made-up GPU counts, and the planner's on this
// machine (CI has none).
#include "matrix/device_check.h"

#include <gtest/gtest.h>

#include "cuda/cuda_probe.h"
#include "matrix/planner.h"
#include "matrix/problem.h"
#include "matrix_test_support.h"
#include "plugin/loader.h"

namespace dtb::core {
namespace {

Cell cell(const std::string& device, const std::string& backend, int64_t world = 1) {
  Cell c;
  c.index = 3;
  c.values = {{"device", device},
              {"backend", backend},
              {"world_size", world},
              {"launcher", std::string("auto")},
              {"accumulation_steps", int64_t{1}},
              {"recovery", std::string("none")}};
  return c;
}

dtb_backend_plugin_v1_t backendMoving(uint32_t capabilities) {
  dtb_backend_plugin_v1_t b{};
  b.capabilities = capabilities;
  return b;
}

const dtb_backend_plugin_v1_t kNccl = backendMoving(DTB_BACKEND_CAP_CUDA_MEMORY);
const dtb_backend_plugin_v1_t kGloo = backendMoving(DTB_BACKEND_CAP_HOST_MEMORY);
const LocalGpus kTwoGpus{2, ""};
const LocalGpus kNoGpu{0, "no CUDA driver"};

TEST(DeviceCheck, CudaCellsOverNcclWithAGpuPerRankPass) {
  EXPECT_FALSE(deviceProblem(cell("cuda", "nccl", 2), &kNccl, kTwoGpus));
  EXPECT_FALSE(deviceProblem(cell("cpu", "gloo", 4), &kGloo, kNoGpu));
}

// Gloo and MPI carry GPU tensors through pinned host memory: ranks may
// share a GPU (the small-machine and testing path), but need one here.
TEST(DeviceCheck, HostMemoryBackendsLetRanksShareAGpu) {
  EXPECT_FALSE(deviceProblem(cell("cuda", "gloo", 4), &kGloo, LocalGpus{1, ""}));
  const auto p = deviceProblem(cell("cuda", "gloo", 2), &kGloo, kNoGpu);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->key, "device");
}

TEST(DeviceCheck, EachRefusalNamesItsKeyAndCell) {
  auto p = deviceProblem(cell("cpu", "nccl"), &kNccl, kTwoGpus);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->key, "backend");
  EXPECT_NE(p->message.find("backend 'nccl' (cell 3) moves GPU memory only"), std::string::npos)
      << p->message;
  EXPECT_NE(p->message.find("set device = \"cuda\""), std::string::npos) << p->message;

  p = deviceProblem(cell("cuda", "nccl"), &kNccl, kNoGpu);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->key, "device");
  EXPECT_EQ(p->message, "device = \"cuda\" (cell 3): no GPU is usable here: no CUDA driver");

  p = deviceProblem(cell("cuda", "nccl", 4), &kNccl, kTwoGpus);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->key, "world_size");
  EXPECT_NE(p->message.find("world_size 4 needs a GPU per rank"), std::string::npos) << p->message;
  EXPECT_NE(p->message.find("2 are visible here"), std::string::npos) << p->message;

  // Gradient accumulation sums on the GPU (GradAccumulator, ZeRO's slices).
  Cell accumulating = cell("cuda", "nccl");
  accumulating.values["accumulation_steps"] = int64_t{4};
  EXPECT_FALSE(deviceProblem(accumulating, &kNccl, kTwoGpus));

  // Restarts from checkpoints of the GPU's weights.
  Cell restarting = cell("cuda", "nccl");
  restarting.values["recovery"] = std::string("restart");
  EXPECT_FALSE(deviceProblem(restarting, &kNccl, kTwoGpus));
}

// Elastic worlds over NCCL put every worker, joiners too, on a GPU of its
// own (elastic/local_places.h): on one machine max_np bounds the world
// within the GPUs. Over a staging backend workers may share one.
TEST(DeviceCheck, ElasticWorldsOverNcclStayWithinTheGpus) {
  Cell elastic = cell("cuda", "nccl");
  elastic.values["recovery"] = std::string("elastic");
  elastic.values["max_np"] = int64_t{0};
  auto p = deviceProblem(elastic, &kNccl, kTwoGpus);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->key, "max_np");
  EXPECT_FALSE(p->aboutThisMachine) << "no bound never fits, whatever the machine";
  EXPECT_NE(
      p->message.find("recovery = \"elastic\" over nccl puts each worker, and each that joins, on a GPU "
                      "of its own: set max_np"),
      std::string::npos)
      << p->message;
  elastic.values["max_np"] = int64_t{3};
  p = deviceProblem(elastic, &kNccl, kTwoGpus);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->aboutThisMachine);
  EXPECT_NE(p->message.find("max_np 3 is more than the 2 GPUs visible here"), std::string::npos)
      << p->message;
  elastic.values["max_np"] = int64_t{2};
  EXPECT_FALSE(deviceProblem(elastic, &kNccl, kTwoGpus));
  elastic.values["backend"] = std::string("gloo");
  elastic.values["max_np"] = int64_t{0};
  EXPECT_FALSE(deviceProblem(elastic, &kGloo, kTwoGpus));
}

// Every strategy trains on GPU tensors over either kind of backend
// (fusion negotiates over NCCL through its Gloo control communicator).
TEST(DeviceCheck, EveryStrategyMayTrainOnGpus) {
  for (const char* strategy : {"allreduce", "bucketed", "fusion", "zero"}) {
    Cell c = cell("cuda", "nccl");
    c.values["strategy"] = std::string(strategy);
    EXPECT_FALSE(deviceProblem(c, &kNccl, kTwoGpus)) << strategy;
    c.values["backend"] = std::string("gloo");
    EXPECT_FALSE(deviceProblem(c, &kGloo, kTwoGpus)) << strategy;
  }
}

// mpirun and srun start ranks on their own nodes: only those see the GPUs.
TEST(DeviceCheck, RanksStartedElsewhereAreNotCountedAgainstThisMachine) {
  for (const char* launcher : {"mpirun", "srun", "ssh"}) {
    Cell c = cell("cuda", "nccl", 16);
    c.values["launcher"] = std::string(launcher);
    EXPECT_FALSE(deviceProblem(c, &kNccl, kNoGpu)) << launcher;
  }
}

// A matrix of GPU cells over NCCL; its device key is at 9:10. (A build
// without CUDA has no NCCL backend: there the cells stage through Gloo.)
#ifdef DTBENCH_HAVE_NCCL
#define DTBENCH_GPU_BACKEND "nccl"
#else
#define DTBENCH_GPU_BACKEND "gloo"
#endif
const std::string kGpuMatrix = R"([experiment]
name = "t"

[run]
model = "linear"
dataset = "tiny"
strategy = "allreduce"
backend = ")" DTBENCH_GPU_BACKEND R"("
device = "cuda"
)";

// The planner on this machine: a GPU matrix is refused in one line, at the
// device key, when no GPU is usable here (CI), and plans where one is.
TEST(DeviceCheck, ThePlannerRefusesGpuCellsWithoutAGpuInOneLine) {
  const bool gpuHere = !probeCuda().devices.empty();
  try {
    planMatrix(parseMatrix("m.toml", kGpuMatrix), testing::matrixTestLoader());
    EXPECT_TRUE(gpuHere) << "planned without a GPU";
  } catch (const MatrixError& e) {
    ASSERT_EQ(e.problems().size(), 1u);
    const std::string line = e.problems()[0].format();
    EXPECT_FALSE(gpuHere) << line;
    EXPECT_NE(line.find("m.toml:9:10: error: device = \"cuda\" (cell 0): no GPU is usable here: "),
              std::string::npos)
        << line;
  }
}

// dtbench validate (and --sbatch) checks a matrix that may run on another
// machine: this one's missing GPU is a warning there, said once.
TEST(DeviceCheck, ACheckOnlyPlanWarnsOnceOfThisMachine) {
  if (!probeCuda().devices.empty()) GTEST_SKIP() << "a GPU is usable here: nothing to warn of";
  const Plan p = planMatrix(parseMatrix("m.toml", kGpuMatrix + "lr = [0.1, 0.2]\n"),
                            testing::matrixTestLoader(), PlanScope::kCheckOnly);
  EXPECT_EQ(p.cells.size(), 2u);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].message.find("(`dtbench run` refuses it on this machine)"), std::string::npos);
}

}  // namespace
}  // namespace dtb::core
