// The layer library's side of the queued hand-off (model.h's gpu_stream,
// ABI 1.13): a GPU network calls its hooks without waiting for its stream
// only under a host that orders the streams itself (1.13 or later) and
// unless `wait_for_gradients` asks for the waits; every model plugin
// declares that parameter and sets gpu_stream, which a network on the host
// answers with null. (The waits themselves are CUDA code: the GPU runs of
// run.gpu_strategies hold each strategy to the all-reduce with them gone.)
#include <gtest/gtest.h>

#include <cstring>

#include "host/plugin_instance.h"
#include "network.h"
#include "plugin/loader.h"

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
    dtb_model_setup_t setup{};
    setup.struct_size = sizeof(setup);
    setup.device = {DTB_DEVICE_HOST, 0};
    setup.input_ndim = 3;
    setup.input_shape[0] = 1;
    setup.input_shape[1] = 28;
    setup.input_shape[2] = 28;
    setup.num_classes = 10;
    setup.max_batch = 2;
    setup.seed = 1;
    setup.threads = 1;
    auto model = createModel(plugin, {}, setup);
    EXPECT_EQ(api.gpu_stream(model->context()), nullptr);
  }
}

}  // namespace
}  // namespace dtb::core
