// The environment stored with each run: the facts a comparison needs, and
// never an arbitrary environment variable (secrets).
#include "store/environment.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

namespace dtb::core {
namespace {

TEST(Environment, HasTheFactsARunIsComparedBy) {
  std::map<std::string, std::string> env;
  for (const auto& [key, value] : captureEnvironment()) env[key] = value;
  for (const char* key : {"host", "os", "cpu_model", "cpu_cores", "memory_bytes", "gpus", "dtbench_version",
                          "git_commit", "abi", "compiler", "lib.SQLite"}) {
    EXPECT_TRUE(env.contains(key)) << key;
  }
  EXPECT_GT(std::stoi(env["cpu_cores"]), 0);
  EXPECT_GT(std::stoll(env["memory_bytes"]), 0);
}

TEST(Environment, NeverCopiesOtherVariables) {
  setenv("DTBENCH_TEST_SECRET_TOKEN", "hunter2", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "hunter3", 1);
  for (const auto& [key, value] : captureEnvironment()) {
    EXPECT_EQ(value.find("hunter"), std::string::npos) << key;
    if (key.starts_with("env.")) {
      EXPECT_TRUE(key == "env.DTBENCH_PLUGIN_PATH" || key == "env.DTBENCH_LOG" ||
                  key == "env.OMP_NUM_THREADS" || key == "env.CUDA_VISIBLE_DEVICES")
          << key;
    }
  }
  unsetenv("DTBENCH_TEST_SECRET_TOKEN");
  unsetenv("AWS_SECRET_ACCESS_KEY");
}

}  // namespace
}  // namespace dtb::core
