// Where the tests find the sources they read and the plugins the build made.
// Every test is compiled with `-include test_paths.h`, so the names read as
// they always have (DTBENCH_SOURCE_DIR, DTBENCH_PLUGIN_DIR, ...); their values
// live in one file configured into the build tree (test_paths.cpp.in). As
// compile definitions they put this clone's absolute paths into the flags of
// every test that used them, and a clone in another folder — CI's — found
// none of those tests in the compiler cache. They are expressions, not
// literals: join them as std::string(DTBENCH_SOURCE_DIR) + "/tests/...".
#pragma once

namespace dtb::testing {

const char* sourceDir();          // the repository's root
const char* pluginDir();          // the built-in plugins the build made
const char* testPluginDir();      // the test fixtures' plugins
const char* brokenPluginDir();    // plugins that must fail to load
const char* crashingPluginDir();  // plugins that crash while loading or creating

}  // namespace dtb::testing

#define DTBENCH_SOURCE_DIR (::dtb::testing::sourceDir())
#define DTBENCH_PLUGIN_DIR (::dtb::testing::pluginDir())
#define DTBENCH_TEST_PLUGIN_DIR (::dtb::testing::testPluginDir())
#define DTBENCH_BROKEN_PLUGIN_DIR (::dtb::testing::brokenPluginDir())
#define DTBENCH_CRASHING_PLUGIN_DIR (::dtb::testing::crashingPluginDir())
