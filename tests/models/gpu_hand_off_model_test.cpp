// The layer library's side of the queued hand-off (model.h's gpu_stream,
// ABI 1.13): a GPU network calls its hooks without waiting for its stream
// only under a host that orders the streams itself (1.13 or later) and
// unless `wait_for_gradients` asks for the waits; every model plugin
// declares that parameter and sets gpu_stream, which a network on the host
// answers with null. On a GPU (skipped in one line elsewhere): gradients
// copied on the host's stream in their grad_ready hooks, the model's work
// still queued, are the final ones once the host ordered its stream after
// the model's, as the step does (train/gpu_hand_off.h).
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "cuda/cuda_memory.h"
#include "cuda/gpu_tensor_ops.h"
#include "dtbench/plugin.hpp"
#include "gpu_available.h"
#include "host/plugin_instance.h"
#include "image_model_setup.h"
#include "network.h"
#include "plugin/loader.h"
#include "train/gpu_hand_off.h"

namespace dtb::core {
namespace {

// A host table of `version` whose only service is config_get_bool, answering
// wait_for_gradients from handOffWaitSetting (-1: the plugin declares none).
int32_t handOffWaitSetting = -1;

dtb_host_t hostOfVersion(uint32_t version) {
  dtb_host_t host{};
  host.struct_size = sizeof(host);
  host.abi_version = version;
  host.config_get_bool = [](dtb_host_ctx_t, const char* key, int32_t* out) {
    if (std::strcmp(key, "wait_for_gradients") != 0 || handOffWaitSetting < 0) return DTB_STATUS_NOT_FOUND;
    *out = handOffWaitSetting;
    return DTB_STATUS_OK;
  };
  return host;
}

TEST(GpuHandOffModel, QueuedOnlyUnderAHostThatOrdersTheStreamsAndUnlessAskedToWait) {
  handOffWaitSetting = -1;
  const dtb_host_t older = hostOfVersion(DTB_ABI_MAKE_VERSION(1, 12));
  EXPECT_FALSE(nn::handsOffQueued(&older));
  const dtb_host_t current = hostOfVersion(DTB_ABI_MAKE_VERSION(1, 13));
  EXPECT_TRUE(nn::handsOffQueued(&current));
  handOffWaitSetting = 0;
  EXPECT_TRUE(nn::handsOffQueued(&current));
  handOffWaitSetting = 1;
  EXPECT_FALSE(nn::handsOffQueued(&current));
  handOffWaitSetting = -1;
}

TEST(GpuHandOffModel, EveryLayerLibraryModelDeclaresTheWaitAndGivesNoStreamOnTheHost) {
  PluginLoader loader(SearchPath({DTBENCH_PLUGIN_DIR}));
  for (const char* name : {"lenet", "mlp", "resnet", "mobilenetv2"}) {
    SCOPED_TRACE(name);
    auto plugin = loader.load(PluginKind::kModel, name);
    ASSERT_NE(plugin->findParam("wait_for_gradients"), nullptr);
    const auto& api = plugin->descriptor<dtb_model_plugin_v1_t>();
    ASSERT_NE(api.gpu_stream, nullptr);
    auto model = createModel(
        plugin, {}, testing::imageModelSetup({DTB_DEVICE_HOST, 0}, 1, 28, 8, 10, 5, 2));  // LeNet's MNIST
    EXPECT_EQ(api.gpu_stream(model->context()), nullptr);
  }
}

dtb_model_setup_t resnetOnGpu() { return testing::imageModelSetup({DTB_DEVICE_CUDA, 0}, 3, 32, 8, 10, 5, 2); }

// Each gradient copied on the host's stream as it is reported.
struct Snapshots {
  std::unique_ptr<GpuHandOff> handOff;
  std::vector<std::unique_ptr<GpuBuffer>> copies;  // by parameter index, made before backward
  int reported = 0;
};

dtb_status_t snapshotGradient(void* user, dtb_param_t* param) {
  auto* s = static_cast<Snapshots*>(user);
  s->handOff->hostAfterModel();
  copyOnGpu(s->copies.at(param->index)->data(), param->grad.data, param->grad.count * sizeof(float),
            gpuWorkStream(0));
  ++s->reported;
  return DTB_STATUS_OK;
}

TEST(GpuHandOffModel, GradientsCopiedInTheirHooksWithTheWorkQueuedAreTheFinalOnes) {
  DTBENCH_SKIP_WITHOUT_GPU();
  PluginLoader loader(SearchPath({DTBENCH_PLUGIN_DIR}));
  auto model = createModel(loader.load(PluginKind::kModel, "resnet"),
                           {{"depth", int64_t{18}}, {"allow_tf32", false}}, resnetOnGpu());
  const auto& api = model->plugin().descriptor<dtb_model_plugin_v1_t>();
  void* stream = api.gpu_stream(model->context());
  ASSERT_NE(stream, nullptr) << "a GPU network under this host hands its work over queued";
  dtb_param_t* const* params = nullptr;
  uint32_t count = 0;
  model->check("params", api.params(model->context(), &params, &count));
  Snapshots snapshots;
  snapshots.handOff = makeGpuHandOff(stream, 0, nullptr, /*strategyWaits=*/false);
  for (uint32_t p = 0; p < count; ++p)
    snapshots.copies.push_back(std::make_unique<GpuBuffer>(params[p]->grad.count * sizeof(float), 0));

  std::vector<float> inputs(8 * 3 * 32 * 32);
  for (size_t i = 0; i < inputs.size(); ++i) inputs[i] = static_cast<float>((i * 7919 % 255) / 255.0 - 0.5);
  std::vector<int32_t> labels(8);
  for (int32_t i = 0; i < 8; ++i) labels[i] = i * 3 % 10;
  dtb_batch_t batch{};
  batch.struct_size = sizeof(batch);
  batch.size = 8;
  batch.inputs = hostTensor(inputs.data(), inputs.size(), DTB_DTYPE_F32);
  batch.labels = hostTensor(labels.data(), labels.size(), DTB_DTYPE_I32);
  dtb_step_hooks_t hooks{};
  hooks.struct_size = sizeof(hooks);
  hooks.user = &snapshots;
  hooks.grad_ready = snapshotGradient;
  dtb_forward_result_t result{};
  result.struct_size = sizeof(result);
  // The first backward: the gradients were zeros before it, so a copy that
  // ran ahead of its gradient's kernels would read zeros or a part.
  model->check("forward", api.forward(model->context(), &batch, nullptr, &result));
  model->check("backward", api.backward(model->context(), &hooks));
  gpuSettleWorkStreams();
  EXPECT_EQ(snapshots.reported, static_cast<int>(count));
  for (uint32_t p = 0; p < count; ++p) {
    const uint64_t bytes = params[p]->grad.count * sizeof(float);
    std::vector<float> copied(params[p]->grad.count), final(params[p]->grad.count);
    copyFromGpu(copied.data(), snapshots.copies[p]->data(), bytes, 0);
    copyFromGpu(final.data(), params[p]->grad.data, bytes, 0);
    EXPECT_EQ(copied, final) << params[p]->name << ": copied in its hook before the GPU computed it";
  }
}

TEST(GpuHandOffModel, AskedToWaitAGpuNetworkGivesNoStream) {
  DTBENCH_SKIP_WITHOUT_GPU();
  PluginLoader loader(SearchPath({DTBENCH_PLUGIN_DIR}));
  auto model = createModel(loader.load(PluginKind::kModel, "resnet"),
                           {{"depth", int64_t{18}}, {"wait_for_gradients", true}}, resnetOnGpu());
  EXPECT_EQ(model->plugin().descriptor<dtb_model_plugin_v1_t>().gpu_stream(model->context()), nullptr);
}

}  // namespace
}  // namespace dtb::core
