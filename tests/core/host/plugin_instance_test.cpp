// Creating plugin instances: configuration checks, the plugin's own failure
// messages, and teardown in the only safe order.
#include "host/plugin_instance.h"

#include <gtest/gtest.h>

#include "plugin/loader.h"

namespace dtb::core {
namespace {

const std::filesystem::path kGood = DTBENCH_TEST_PLUGIN_DIR;
const std::filesystem::path kBroken = DTBENCH_BROKEN_PLUGIN_DIR;

std::shared_ptr<const LoadedPlugin> tiny() {
  return PluginLoader(SearchPath({kGood})).load(PluginKind::kDataset, "tiny");
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
  auto plugin = PluginLoader(SearchPath({kBroken})).load(PluginKind::kStrategy, "create_fails");
  dtb_strategy_setup_t setup{};
  setup.struct_size = sizeof(setup);
  const std::string error = errorOf([&] { createStrategy(plugin, {}, setup); });
  EXPECT_NE(error.find("strategy 'create_fails'"), std::string::npos) << error;
  EXPECT_NE(error.find("dtbench-strategy-create_fails.so"), std::string::npos) << error;
  EXPECT_NE(error.find("create failed (invalid argument): bucket_cap_mb must be at least"),
            std::string::npos)
      << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

TEST(PluginInstance, AFailureWithoutAMessageIsCalledAPluginBug) {
  auto plugin = PluginLoader(SearchPath({kBroken})).load(PluginKind::kStrategy, "create_fails_silently");
  dtb_strategy_setup_t setup{};
  setup.struct_size = sizeof(setup);
  const std::string error = errorOf([&] { createStrategy(plugin, {}, setup); });
  EXPECT_NE(error.find("create failed (internal error): the plugin gave no message"), std::string::npos)
      << error;
}

TEST(PluginConfig, UnknownKeyGetsAHint) {
  const std::string error = errorOf([] { openDataset(tiny(), {{"sample", int64_t{4}}}); });
  EXPECT_NE(error.find("unknown parameter 'sample' (did you mean 'samples'?)"), std::string::npos)
      << error;
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
    PluginLoader loader(SearchPath({kGood}));
    dataset = openDataset(loader.load(PluginKind::kDataset, "tiny"), {});
  }
  dtb_dataset_info_t info{};
  info.struct_size = sizeof(info);
  dataset->check("info", dataset->plugin().descriptor<dtb_dataset_plugin_v1_t>().info(
                             dataset->context(), &info));
  EXPECT_EQ(info.num_classes, 4u);
  dataset.reset();  // close() runs while the code is still mapped
}

}  // namespace
}  // namespace dtb::core
