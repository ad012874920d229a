// Creating plugin instances: configuration checks, the plugin's own failure
// messages, and teardown in the only safe order.
#include "host/plugin_instance.h"

#include <gtest/gtest.h>

#include "dtbench/plugin.hpp"
#include "host/communicator.h"
#include "plugin/loader.h"
#include "plugin_dirs.h"

namespace dtb::core {
namespace {

using testing::kBrokenPluginDir;
using testing::kTestPluginDir;

std::shared_ptr<const LoadedPlugin> tiny() {
  return PluginLoader(SearchPath({kTestPluginDir})).load(PluginKind::kDataset, "tiny");
}

std::string errorOf(const std::function<void()>& body) {
  try {
    body();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(PluginInstance, OpensADatasetAndReadsThroughIt) {
  auto plugin = tiny();
  auto dataset = openDataset(plugin, {{"samples", int64_t{10}}, {"classes", int64_t{3}}});
  const auto& d = plugin->descriptor<dtb_dataset_plugin_v1_t>();
  dtb_dataset_info_t info{};
  info.struct_size = sizeof(info);
  dataset->check("info", d.info(dataset->context(), &info));
  EXPECT_EQ(info.num_classes, 3u);
  EXPECT_EQ(info.sample_ndim, 3);

  const uint64_t indices[] = {7, 2};
  float samples[8];
  int32_t labels[2];
  dataset->check("read", d.read(dataset->context(), 0, indices, 2, samples, labels));
  EXPECT_EQ(samples[0], 28.0f);
  EXPECT_EQ(samples[7], 11.0f);
  EXPECT_EQ(labels[0], 1);
  EXPECT_EQ(labels[1], 2);
}

TEST(PluginInstance, APluginErrorCarriesThePluginsMessage) {
  auto plugin = tiny();
  auto dataset = openDataset(plugin, {{"samples", int64_t{4}}});
  const uint64_t outOfRange[] = {99};
  float samples[4];
  int32_t labels[1];
  const std::string error = errorOf([&] {
    dataset->check("read", plugin->descriptor<dtb_dataset_plugin_v1_t>().read(
                               dataset->context(), 0, outOfRange, 1, samples, labels));
  });
  EXPECT_NE(error.find("dataset 'tiny'"), std::string::npos) << error;
  EXPECT_NE(error.find("read failed (invalid argument): tiny: index 99 out of range"), std::string::npos)
      << error;
}

TEST(PluginInstance, FailedOpenReportsThePluginAndItsMessage) {
  const std::string error = errorOf([] { openDataset(tiny(), {{"fail_open", true}}); });
  EXPECT_NE(error.find("dtbench-dataset-tiny.so"), std::string::npos) << error;
  EXPECT_NE(error.find("open failed (I/O error): tiny: asked to fail"), std::string::npos) << error;
}

TEST(PluginInstance, FailedCreateReportsThePluginsMessage) {
  auto plugin = PluginLoader(SearchPath({kBrokenPluginDir})).load(PluginKind::kStrategy, "create_fails");
  dtb_strategy_setup_t setup{};
  setup.struct_size = sizeof(setup);
  const std::string error = errorOf([&] { createStrategy(plugin, {}, setup); });
  EXPECT_NE(error.find("strategy 'create_fails'"), std::string::npos) << error;
  EXPECT_NE(error.find("dtbench-strategy-create_fails.so"), std::string::npos) << error;
  EXPECT_NE(error.find("create failed (invalid argument): bucket_cap_mb must be at least"), std::string::npos)
      << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

TEST(PluginInstance, AFailureWithoutAMessageIsCalledAPluginBug) {
  auto plugin =
      PluginLoader(SearchPath({kBrokenPluginDir})).load(PluginKind::kStrategy, "create_fails_silently");
  dtb_strategy_setup_t setup{};
  setup.struct_size = sizeof(setup);
  const std::string error = errorOf([&] { createStrategy(plugin, {}, setup); });
  EXPECT_NE(error.find("create failed (internal error): the plugin gave no message"), std::string::npos)
      << error;
}

TEST(PluginConfig, UnknownKeyGetsAHint) {
  const std::string error = errorOf([] { openDataset(tiny(), {{"sample", int64_t{4}}}); });
  EXPECT_NE(error.find("unknown parameter 'sample' (did you mean 'samples'?)"), std::string::npos) << error;
}

TEST(PluginConfig, EveryProblemIsReportedAtOnce) {
  const std::string error = errorOf([] {
    openDataset(tiny(), {{"samples", std::string("many")}, {"classes", int64_t{1}}});
  });
  EXPECT_NE(error.find("parameter 'samples': expected int"), std::string::npos) << error;
  EXPECT_NE(error.find("parameter 'classes': 1 is below the minimum 2"), std::string::npos) << error;
}

TEST(PluginConfig, DefaultsFillWhatIsNotGiven) {
  auto plugin = tiny();
  ParamValues config = resolveConfig(*plugin, {{"classes", int64_t{7}}});
  EXPECT_EQ(std::get<int64_t>(config.at("samples")), 64);
  EXPECT_EQ(std::get<int64_t>(config.at("classes")), 7);
  EXPECT_EQ(std::get<bool>(config.at("fail_open")), false);
}

TEST(PluginInstance, OutlivesTheLoaderAndItsOwnPluginHandle) {
  // The instance alone keeps the library handle open: destroy runs plugin
  // code after the loader and every other reference are gone.
  std::unique_ptr<PluginInstance> dataset;
  {
    PluginLoader loader(SearchPath({kTestPluginDir}));
    dataset = openDataset(loader.load(PluginKind::kDataset, "tiny"), {});
  }
  dtb_dataset_info_t info{};
  info.struct_size = sizeof(info);
  dataset->check("info",
                 dataset->plugin().descriptor<dtb_dataset_plugin_v1_t>().info(dataset->context(), &info));
  EXPECT_EQ(info.num_classes, 4u);
  dataset.reset();  // close() runs while the code is still mapped
}

// A strategy gives the model's own storage of a parameter back through the
// host (ZeRO does, once the values live in its shards).
class ParamRelease : public ::testing::Test {
 protected:
  std::unique_ptr<PluginInstance> model(const char* name) {
    dtb_model_setup_t setup{};
    setup.struct_size = sizeof(setup);
    setup.device = {DTB_DEVICE_HOST, 0};
    setup.input_ndim = 1;
    setup.input_shape[0] = 4;
    setup.num_classes = 3;
    setup.max_batch = 2;
    setup.seed = 1;
    setup.threads = 1;
    auto m = createModel(loader_.load(PluginKind::kModel, name), {}, setup);
    const auto& api = m->plugin().descriptor<dtb_model_plugin_v1_t>();
    uint32_t count = 0;
    m->check("params", api.params(m->context(), &params_, &count));
    return m;
  }
  PluginLoader loader_{SearchPath({DTBENCH_PLUGIN_DIR})};
  dtb_param_t* const* params_ = nullptr;
};

TEST_F(ParamRelease, TheModelFreesItsStorageAndForgetsItsPointer) {
  auto mlp = model("mlp");
  HostServices services("strategy/test", {});
  services.bind(nullptr, nullptr, mlp.get());
  const dtb_host_t* host = services.table();
  ASSERT_TRUE(DTB_HAS_MEMBER(host, dtb_host_t, param_release));
  ASSERT_EQ(host->param_release(host->ctx, params_[0], DTB_PARAM_PART_VALUE), DTB_STATUS_OK);
  EXPECT_EQ(params_[0]->value.data, nullptr);
  EXPECT_NE(params_[0]->grad.data, nullptr) << "only the value was released";
  // A part the strategy already points elsewhere keeps that pointer.
  float mine[64] = {};
  params_[1]->grad.data = mine;
  ASSERT_EQ(host->param_release(host->ctx, params_[1], DTB_PARAM_PART_GRAD), DTB_STATUS_OK);
  EXPECT_EQ(params_[1]->grad.data, mine);
  // The model checks what it is given, and its message reaches the strategy.
  dtb_param_t stranger = *params_[0];
  stranger.index = 999;
  EXPECT_EQ(host->param_release(host->ctx, &stranger, DTB_PARAM_PART_VALUE), DTB_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(services.takeError()->find("no parameter 999"), std::string::npos);
}

TEST_F(ParamRelease, AModelWithoutReleaseKeepsItsStorage) {
  auto linear = model("linear");
  HostServices services("strategy/test", {});
  services.bind(nullptr, nullptr, linear.get());
  const dtb_host_t* host = services.table();
  void* before = params_[0]->value.data;
  EXPECT_EQ(host->param_release(host->ctx, params_[0], DTB_PARAM_PART_VALUE), DTB_STATUS_UNSUPPORTED);
  EXPECT_NE(services.takeError()->find("cannot release"), std::string::npos);
  EXPECT_EQ(params_[0]->value.data, before);
}

TEST_F(ParamRelease, OnlyAStrategyInARunHasAModel) {
  auto mlp = model("mlp");
  HostServices services("strategy/test", {});
  const dtb_host_t* host = services.table();
  EXPECT_EQ(host->param_release(host->ctx, params_[0], DTB_PARAM_PART_VALUE), DTB_STATUS_UNSUPPORTED);
  EXPECT_NE(services.takeError()->find("param_release: not available"), std::string::npos);
  EXPECT_NE(params_[0]->value.data, nullptr);
}

// All-gather in place is ABI 1.2: a backend built for 1.1 is refused with a
// message naming it, never handed aliased buffers.
TEST(HostCommunicator, InPlaceAllgatherNeedsABackendBuiltForIt) {
  dtb_rendezvous_t rdv{};
  rdv.struct_size = sizeof(rdv);
  rdv.world_size = 1;
  rdv.timeout_ms = 1000;
  PluginLoader loader(SearchPath({kTestPluginDir}));
  float data[4] = {1, 2, 3, 4};
  dtb_tensor_t all = dtb::hostTensor(data, 4, DTB_DTYPE_F32), mine = dtb::hostTensor(data, 4, DTB_DTYPE_F32);
  for (const char* name : {"single", "single_v11"}) {
    Communicator comm(createBackend(loader.load(PluginKind::kBackend, name), {}, rdv), 0, 1,
                      std::chrono::milliseconds(1000));
    dtb_request_t request = nullptr;
    std::string error;
    const dtb_status_t status = comm.allgather(&mine, &all, &request, &error);
    if (std::string(name) == "single") {
      ASSERT_EQ(status, DTB_STATUS_OK) << error;
      EXPECT_EQ(comm.wait(request, 1000, &error), DTB_STATUS_OK) << error;
    } else {
      EXPECT_EQ(status, DTB_STATUS_UNSUPPORTED);
      EXPECT_NE(error.find("single_v11"), std::string::npos) << error;
      EXPECT_NE(error.find("ABI 1.1"), std::string::npos) << error;
    }
  }
}

}  // namespace
}  // namespace dtb::core
