// A GPU model that gives its stream (model.h's gpu_stream, ABI 1.13) calls
// its hooks with its work still queued, and the step orders the GPU's
// streams instead: before every hook that queues work on a gradient or a
// layer's parameters, the host's streams wait for the model's; after
// layer_begin, the model's waits for what the hook queued. The order is
// checked here on the CPU, through a stand-in model whose parameters say
// they are on GPU 0 and a hand-off that records instead of ordering
// streams (the CUDA events themselves: tests/core/cuda/gpu_stream_order_test.cpp).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "plugin/loader.h"
#include "train/training_step.h"

namespace dtb::core {
namespace {

// What happened, in order: the model's hooks as the strategy saw them, and
// the hand-off's orderings. The descriptors' functions cannot capture.
std::vector<std::string>* handOffLog = nullptr;

void logHandOff(const std::string& line) {
  if (handOffLog) handOffLog->push_back(line);
}

// Two layers, a parameter each, "on GPU 0" (host memory: nothing reads it).
struct StandInGpuModel {
  float values[2] = {1, 2}, grads[2] = {0, 0};
  dtb_param_t records[2]{};
  dtb_param_t* views[2] = {&records[0], &records[1]};
  const char* layerNames[2] = {"first", "second"};
  bool givesStream = true;
};

bool standInGivesStream = true;

dtb_model_plugin_v1_t standInModel(const dtb_plugin_header_t& header) {
  dtb_model_plugin_v1_t d{};
  d.header = header;
  d.header.abi_version = DTB_ABI_VERSION;
  d.create = [](const dtb_host_t*, const dtb_model_setup_t*, void** out) {
    auto* m = new StandInGpuModel;
    m->givesStream = standInGivesStream;
    for (uint32_t i = 0; i < 2; ++i) {
      dtb_param_t& p = m->records[i];
      p.struct_size = sizeof(p);
      p.index = i;
      p.name = m->layerNames[i];
      p.layer = i;
      p.value = {&m->values[i], 1, DTB_DTYPE_F32, {DTB_DEVICE_CUDA, 0}, 1, {1}};
      p.grad = {&m->grads[i], 1, DTB_DTYPE_F32, {DTB_DEVICE_CUDA, 0}, 1, {1}};
    }
    *out = m;
    return DTB_STATUS_OK;
  };
  d.destroy = [](void* m) { delete static_cast<StandInGpuModel*>(m); };
  d.params = [](void* m, dtb_param_t* const** out, uint32_t* count) {
    *out = static_cast<StandInGpuModel*>(m)->views;
    *count = 2;
    return DTB_STATUS_OK;
  };
  d.layers = [](void* m, const char* const** out, uint32_t* count) {
    *out = static_cast<StandInGpuModel*>(m)->layerNames;
    *count = 2;
    return DTB_STATUS_OK;
  };
  d.set_mode = [](void*, dtb_mode_t) { return DTB_STATUS_OK; };
  d.forward = [](void*, const dtb_batch_t*, const dtb_step_hooks_t* hooks, dtb_forward_result_t* out) {
    for (uint32_t layer = 0; layer < 2; ++layer) {
      if (hooks->layer_begin) {
        if (const dtb_status_t s = hooks->layer_begin(hooks->user, layer, DTB_PASS_FORWARD);
            s != DTB_STATUS_OK)
          return s;
      }
      logHandOff("model computes forward " + std::to_string(layer));
    }
    out->loss = 1;
    return DTB_STATUS_OK;
  };
  d.backward = [](void* m, const dtb_step_hooks_t* hooks) {
    auto* model = static_cast<StandInGpuModel*>(m);
    for (uint32_t layer = 2; layer-- > 0;) {
      if (hooks->layer_begin) {
        if (const dtb_status_t s = hooks->layer_begin(hooks->user, layer, DTB_PASS_BACKWARD);
            s != DTB_STATUS_OK)
          return s;
      }
      logHandOff("model computes backward " + std::to_string(layer));
      if (hooks->grad_ready) {
        if (const dtb_status_t s = hooks->grad_ready(hooks->user, &model->records[layer]); s != DTB_STATUS_OK)
          return s;
      }
    }
    return DTB_STATUS_OK;
  };
  d.gpu_stream = [](void* m) -> void* {
    static int stream;  // a stand-in: only its being there counts
    return static_cast<StandInGpuModel*>(m)->givesStream ? &stream : nullptr;
  };
  return d;
}

// Logs what it is told; queues nothing. Not `listens`: no hooks (the all-reduce).
dtb_strategy_plugin_v1_t listeningStrategy(const dtb_plugin_header_t& header, bool listens = true) {
  dtb_strategy_plugin_v1_t d{};
  d.header = header;
  d.header.abi_version = DTB_ABI_VERSION;
  d.create = [](const dtb_host_t*, const dtb_strategy_setup_t*, void** out) {
    static int context;
    *out = &context;
    return DTB_STATUS_OK;
  };
  d.destroy = [](void*) {};
  d.layer_begin = [](void*, uint32_t layer, dtb_pass_t pass) {
    logHandOff(std::string("strategy layer_begin ") + (pass == DTB_PASS_FORWARD ? "forward " : "backward ") +
               std::to_string(layer));
    return DTB_STATUS_OK;
  };
  d.grad_ready = [](void*, dtb_param_t* p) {
    logHandOff("strategy grad_ready " + std::to_string(p->index));
    return DTB_STATUS_OK;
  };
  d.finish_backward = [](void*) { return DTB_STATUS_OK; };
  d.step = [](void*) { return DTB_STATUS_OK; };
  if (!listens) {
    d.layer_begin = nullptr;
    d.grad_ready = nullptr;
  }
  return d;
}

class RecordingHandOff final : public GpuHandOff {
 public:
  void hostAfterModel() override { logHandOff("host after model"); }
  void modelAfterHost() override { logHandOff("model after host"); }
};

class GpuHandOffTest : public ::testing::Test {
 protected:
  void SetUp() override { handOffLog = &log_; }
  void TearDown() override { handOffLog = nullptr; }

  // `steps` steps of the stand-in under the listening strategy (or one with
  // no hooks), profiled by `profile` where given; the log of them.
  std::vector<std::string> train(bool modelGivesStream, bool* queued, int steps = 1, bool listens = true,
                                 GradientProfile* profile = nullptr) {
    PluginLoader loader(SearchPath({DTBENCH_PLUGIN_DIR, DTBENCH_TEST_PLUGIN_DIR}));
    auto realModel = loader.load(PluginKind::kModel, "linear");
    auto realStrategy = loader.load(PluginKind::kStrategy, "allreduce");
    auto modelPlugin = std::make_shared<const LoadedPlugin>(
        std::make_shared<SharedLibrary>(realModel->path()), PluginKind::kModel, 1,
        standInModel(realModel->header()), std::vector<ParamSpec>{});
    auto strategyPlugin = std::make_shared<const LoadedPlugin>(
        std::make_shared<SharedLibrary>(realStrategy->path()), PluginKind::kStrategy, 1,
        listeningStrategy(realStrategy->header(), listens), std::vector<ParamSpec>{});
    dtb_model_setup_t setup{};
    setup.struct_size = sizeof(setup);
    setup.device = {DTB_DEVICE_CUDA, 0};
    standInGivesStream = modelGivesStream;
    auto model = createModel(modelPlugin, {}, setup);
    dtb_param_t* const* params = nullptr;
    uint32_t count = 0;
    model->plugin().descriptor<dtb_model_plugin_v1_t>().params(model->context(), &params, &count);
    dtb_strategy_setup_t strategySetup{sizeof(dtb_strategy_setup_t), params, count, 2,
                                       {DTB_DEVICE_CUDA, 0},         1};
    Optimizer optimizer({"sgd", 0.1, 0.0, false, 0.0});
    auto strategy = createStrategy(strategyPlugin, {}, strategySetup, nullptr, &optimizer, model.get());
    TrainingStep step(*model, *strategy, optimizer, nullptr, profile);
    step.handOffThrough(std::make_unique<RecordingHandOff>());
    *queued = step.handsOffQueued();
    log_.clear();
    dtb_batch_t batch{};
    batch.struct_size = sizeof(batch);
    for (int s = 0; s < steps; ++s) {
      const dtb_step_info_t info{sizeof(dtb_step_info_t), static_cast<uint64_t>(s), 0, 0, 1};
      step.run(batch, info);
    }
    return log_;
  }

  std::vector<std::string> log_;
};

TEST_F(GpuHandOffTest, HostStreamsWaitForTheModelBeforeEachHookAndTheModelForTheHostAfterLayerBegin) {
  bool queued = false;
  const std::vector<std::string> log = train(true, &queued);
  EXPECT_TRUE(queued);
  const std::vector<std::string> expected = {"host after model", "strategy layer_begin forward 0",
                                             "model after host", "model computes forward 0",
                                             "host after model", "strategy layer_begin forward 1",
                                             "model after host", "model computes forward 1",
                                             "host after model", "strategy layer_begin backward 1",
                                             "model after host", "model computes backward 1",
                                             "host after model", "strategy grad_ready 1",
                                             "host after model", "strategy layer_begin backward 0",
                                             "model after host", "model computes backward 0",
                                             "host after model", "strategy grad_ready 0"};
  EXPECT_EQ(log, expected);
}

TEST_F(GpuHandOffTest, AModelThatWaitsForItsGpuIsNotOrdered) {
  bool queued = true;
  const std::vector<std::string> log = train(false, &queued);
  EXPECT_FALSE(queued);
  for (const std::string& line : log) {
    EXPECT_EQ(line.find("after"), std::string::npos) << line;
  }
  EXPECT_EQ(log.size(), 10u);  // the hooks and the model's layers alone
}

// A GPU model that waits for its GPU before each hook is not profiled under
// a strategy that listens for no gradients: the profile alone would add that
// wait to every layer. Under one that listens the waits are there anyway.
TEST_F(GpuHandOffTest, AWaitingGpuModelIsProfiledOnlyWhereTheStrategyListens) {
  bool queued = true;
  GradientProfile unheard, heard;
  train(false, &queued, 3, /*listens=*/false, &unheard);
  EXPECT_EQ(unheard.backwards(), 0);
  train(false, &queued, 3, /*listens=*/true, &heard);
  EXPECT_EQ(heard.backwards(), 2);  // all but the first
  EXPECT_EQ(heard.gradients().size(), 2u);
}

}  // namespace
}  // namespace dtb::core
