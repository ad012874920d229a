// The epoch hooks of ABI 1.3 as the loader hands them to the host: a
// strategy built for 1.3 has them; one built for 1.2 (a descriptor whose
// struct_size ends before them) reads them as NULL, even when the bytes past
// its declared end hold function pointers, so the worker skips them. The
// run-level test is tests/core/run/epoch_hooks_test.sh.
#include <gtest/gtest.h>

#include <cstddef>

#include "plugin/loader.h"

namespace dtb::core {
namespace {

PluginLoader loader() { return PluginLoader(SearchPath({DTBENCH_TEST_PLUGIN_DIR})); }

TEST(EpochHooksDescriptor, CurrentStrategyHasBothHooks) {
  auto plugin = loader().load(PluginKind::kStrategy, "epoch_hooks");
  EXPECT_EQ(plugin->abiVersion(), std::to_string(DTB_ABI_MAJOR) + "." + std::to_string(DTB_ABI_MINOR));
  const auto& d = plugin->descriptor<dtb_strategy_plugin_v1_t>();
  EXPECT_NE(d.before_evaluation, nullptr);
  EXPECT_NE(d.end_epoch, nullptr);
}

TEST(EpochHooksDescriptor, Abi12StrategyReadsThemAsNull) {
  // The v12 fixture's in-memory descriptor has both set past its struct_size.
  auto plugin = loader().load(PluginKind::kStrategy, "epoch_hooks_v12");
  EXPECT_EQ(plugin->abiVersion(), "1.2");
  const auto& d = plugin->descriptor<dtb_strategy_plugin_v1_t>();
  EXPECT_NE(d.step, nullptr);
  EXPECT_NE(d.before_forward, nullptr);  // what 1.2 covers is still read
  EXPECT_EQ(d.before_evaluation, nullptr);
  EXPECT_EQ(d.end_epoch, nullptr);
}

TEST(EpochHooksDescriptor, AppendedAfterTheReleasedEnd) {
  // state_load was the last member of 1.2; a 1.2 descriptor is exactly that long.
  EXPECT_EQ(offsetof(dtb_strategy_plugin_v1_t, before_evaluation),
            offsetof(dtb_strategy_plugin_v1_t, state_load) + sizeof(void (*)()));
  EXPECT_GT(offsetof(dtb_strategy_plugin_v1_t, end_epoch),
            offsetof(dtb_strategy_plugin_v1_t, before_evaluation));
}

}  // namespace
}  // namespace dtb::core
