// The folders the tests load plugins from, as paths: the working test
// plugins and those that must fail to load.
#pragma once

#include <filesystem>

namespace dtb::testing {

inline const std::filesystem::path kTestPluginDir = DTBENCH_TEST_PLUGIN_DIR;
inline const std::filesystem::path kBrokenPluginDir = DTBENCH_BROKEN_PLUGIN_DIR;

}  // namespace dtb::testing
