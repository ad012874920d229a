// The plain-C example strategy, driven through the ABI exactly as the host
// drives it, over a recording fake communicator and optimizer.
#include <gtest/gtest.h>

#include <vector>

#include "host/host_services.h"
#include "plugin/loader.h"

namespace dtb::core {
namespace {

// What the fake host saw. One test at a time uses it.
struct Recorder {
  std::vector<std::pair<float*, dtb_reduce_op_t>> allreduces;
  int waits = 0;
  std::vector<uint32_t> updates;
  int failAllreduceAt = -1;  // index of the all-reduce to fail, -1: none
};
Recorder recorder;

dtb_status_t fakeAllreduce(dtb_host_ctx_t, dtb_tensor_t* buffer, dtb_reduce_op_t op, dtb_request_t* out) {
  if (static_cast<int>(recorder.allreduces.size()) == recorder.failAllreduceAt) {
    return DTB_STATUS_COMM_FAILURE;
  }
  recorder.allreduces.emplace_back(static_cast<float*>(buffer->data), op);
  *out = reinterpret_cast<dtb_request_t>(recorder.allreduces.size());
  return DTB_STATUS_OK;
}

dtb_status_t fakeWait(dtb_host_ctx_t, dtb_request_t, int64_t) {
  ++recorder.waits;
  return DTB_STATUS_OK;
}

uint32_t twoStateFloats(dtb_host_ctx_t) { return 2; }  // like Adam's m and v

dtb_status_t fakeUpdate(dtb_host_ctx_t, dtb_tensor_t* param, const dtb_tensor_t* grad, float* state,
                        uint32_t index) {
  // SGD with lr 1 (state touched to prove it is sized count x 2).
  auto* p = static_cast<float*>(param->data);
  const auto* g = static_cast<const float*>(grad->data);
  for (uint64_t i = 0; i < param->count; ++i) {
    p[i] -= g[i];
    state[2 * i + 1] += 1.0f;
  }
  recorder.updates.push_back(index);
  return DTB_STATUS_OK;
}

class ExampleCStrategy : public ::testing::Test {
 protected:
  void SetUp() override {
    recorder = Recorder{};
    plugin_ = PluginLoader(SearchPath({DTBENCH_TEST_PLUGIN_DIR})).load(PluginKind::kStrategy, "example_c");
    for (uint32_t i = 0; i < 2; ++i) {
      dtb_param_t& p = params_[i];
      p.struct_size = sizeof(dtb_param_t);
      p.index = i;
      p.name = i == 0 ? "fc.weight" : "fc.bias";
      p.value = tensor(values_[i]);
      p.grad = tensor(grads_[i]);
      pointers_[i] = &p;
    }
  }

  dtb_tensor_t tensor(std::vector<float>& data) {
    dtb_tensor_t t{};
    t.data = data.data();
    t.count = data.size();
    t.dtype = DTB_DTYPE_F32;
    t.ndim = 1;
    t.shape[0] = static_cast<int64_t>(data.size());
    return t;
  }

  // The host's table for this instance, with a fake communicator and optimizer.
  void create(const ParamValues& config) {
    services_ = std::make_unique<HostServices>("strategy/example_c", resolveConfig(*plugin_, config));
    host_ = *services_->table();
    host_.comm_allreduce = fakeAllreduce;
    host_.comm_wait = fakeWait;
    host_.optim_state_floats = twoStateFloats;
    host_.optim_update = fakeUpdate;
    dtb_strategy_setup_t setup{};
    setup.struct_size = sizeof(setup);
    setup.params = pointers_;
    setup.param_count = 2;
    setup.accumulation_steps = 1;
    ASSERT_EQ(strategy().create(&host_, &setup, &context_), DTB_STATUS_OK);
  }

  void TearDown() override {
    if (context_) strategy().destroy(context_);
    if (services_) {
      EXPECT_EQ(services_->memory().currentTotal(), 0u) << "the plugin leaked";
    }
  }

  const dtb_strategy_plugin_v1_t& strategy() { return plugin_->descriptor<dtb_strategy_plugin_v1_t>(); }

  std::shared_ptr<const LoadedPlugin> plugin_;
  std::unique_ptr<HostServices> services_;
  dtb_host_t host_{};
  void* context_ = nullptr;
  std::vector<float> values_[2] = {{1, 2, 3}, {4}};
  std::vector<float> grads_[2] = {{0.5f, 0.5f, 0.5f}, {1}};
  dtb_param_t params_[2]{};
  dtb_param_t* pointers_[2]{};
};

TEST_F(ExampleCStrategy, AllReducesEveryGradientThenWaitsForEach) {
  create({});
  ASSERT_EQ(strategy().finish_backward(context_), DTB_STATUS_OK);
  ASSERT_EQ(recorder.allreduces.size(), 2u);
  EXPECT_EQ(recorder.allreduces[0].first, grads_[0].data());
  EXPECT_EQ(recorder.allreduces[1].first, grads_[1].data());
  EXPECT_EQ(recorder.allreduces[0].second, DTB_REDUCE_AVG);
  EXPECT_EQ(recorder.waits, 2);
}

TEST_F(ExampleCStrategy, OpParameterSelectsSum) {
  create({{"op", std::string("sum")}});
  ASSERT_EQ(strategy().finish_backward(context_), DTB_STATUS_OK);
  EXPECT_EQ(recorder.allreduces[0].second, DTB_REDUCE_SUM);
}

TEST_F(ExampleCStrategy, StepUpdatesEveryParameterWithItsOwnState) {
  create({});
  // Optimizer state is held per rank and counted: 4 elements x 2 floats.
  EXPECT_EQ(services_->memory().current(DTB_MEM_OPTIMIZER), 4u * 2 * sizeof(float));
  ASSERT_EQ(strategy().step(context_), DTB_STATUS_OK);
  EXPECT_EQ(recorder.updates, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(values_[0], (std::vector<float>{0.5f, 1.5f, 2.5f}));
  EXPECT_EQ(values_[1], (std::vector<float>{3}));

  dtb_memory_report_t report{};
  report.struct_size = sizeof(report);
  ASSERT_EQ(strategy().memory_report(context_, &report), DTB_STATUS_OK);
  EXPECT_EQ(report.param_bytes, 16u);
  EXPECT_EQ(report.optimizer_bytes, 32u);
}

TEST_F(ExampleCStrategy, AFailedAllReduceStillWaitsForWhatWasIssued) {
  create({});
  recorder.failAllreduceAt = 1;
  EXPECT_EQ(strategy().finish_backward(context_), DTB_STATUS_COMM_FAILURE);
  EXPECT_EQ(recorder.waits, 1);  // the first one, issued before the failure
}

}  // namespace
}  // namespace dtb::core
