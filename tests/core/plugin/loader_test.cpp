// The loader: finding plugins by name, file and path, and one clear,
// one-line error naming the file and the cause for every way a plugin can be
// broken.
#include "plugin/loader.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "plugin/plugin_error.h"
#include "plugin_dirs.h"
#include "temp_dir.h"

namespace dtb::core {
namespace {
namespace fs = std::filesystem;

using testing::kBrokenPluginDir;
using testing::kTestPluginDir;

PluginLoader goodLoader() { return PluginLoader(SearchPath({kTestPluginDir})); }

// Loads a broken strategy and returns the one-line error.
std::string loadError(const std::string& name) {
  PluginLoader loader(SearchPath({kBrokenPluginDir}));
  try {
    loader.load(PluginKind::kStrategy, name);
  } catch (const PluginError& e) {
    return e.what();
  }
  ADD_FAILURE() << name << " loaded, but it is broken";
  return "";
}

TEST(PluginLoader, LoadsByNameFileNameAndPath) {
  PluginLoader loader = goodLoader();
  auto byName = loader.load(PluginKind::kStrategy, "example_c");
  auto byFile = loader.load(PluginKind::kStrategy, "dtbench-strategy-example_c.so");
  auto byPath =
      loader.load(PluginKind::kStrategy, (kTestPluginDir / "dtbench-strategy-example_c.so").string());
  for (const auto& plugin : {byName, byFile, byPath}) {
    EXPECT_EQ(plugin->name(), "example_c");
    EXPECT_EQ(plugin->version(), "1.0.0");
    EXPECT_EQ(plugin->abiVersion(), std::to_string(DTB_ABI_MAJOR) + "." + std::to_string(DTB_ABI_MINOR));
    EXPECT_EQ(plugin->entryMajor(), 1u);
    EXPECT_EQ(fs::canonical(plugin->path()), fs::canonical(kTestPluginDir / "dtbench-strategy-example_c.so"));
  }
}

TEST(PluginLoader, ReadsDeclaredParameters) {
  auto plugin = goodLoader().load(PluginKind::kStrategy, "example_c");
  ASSERT_EQ(plugin->params().size(), 2u);
  const ParamSpec* op = plugin->findParam("op");
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->type, DTB_PARAM_STRING);
  EXPECT_EQ(std::get<std::string>(*op->defaultValue), "avg");
  EXPECT_EQ(op->choices, (std::vector<std::string>{"avg", "sum"}));
  const ParamSpec* timeout = plugin->findParam("wait_timeout_ms");
  ASSERT_NE(timeout, nullptr);
  EXPECT_EQ(std::get<int64_t>(*timeout->defaultValue), -1);
  EXPECT_EQ(timeout->minValue, -1.0);
  EXPECT_FALSE(timeout->maxValue.has_value());
}

TEST(PluginLoader, LoadsEachKindThroughItsOwnEntrySymbol) {
  auto dataset = goodLoader().load(PluginKind::kDataset, "tiny");
  EXPECT_EQ(dataset->kind(), PluginKind::kDataset);
  EXPECT_NE(dataset->descriptor<dtb_dataset_plugin_v1_t>().read, nullptr);
}

TEST(PluginLoader, DiscoversWorkingPluginsOfEveryKind) {
  auto found = goodLoader().discover();
  std::set<std::string> names;
  for (const auto& entry : found) {
    EXPECT_TRUE(entry.plugin) << entry.file << ": " << entry.error;
    if (entry.plugin) names.insert(std::string(kindName(entry.kind)) + "/" + entry.plugin->name());
  }
  EXPECT_TRUE(names.contains("strategy/example_c"));
  EXPECT_TRUE(names.contains("dataset/tiny"));
}

TEST(PluginLoader, DiscoverReportsBrokenPluginsWithoutThrowing) {
  auto found = PluginLoader(SearchPath({kBrokenPluginDir})).discover(PluginKind::kStrategy);
  ASSERT_GE(found.size(), 12u);
  for (const auto& entry : found) {
    const std::string name = entry.file.filename().string();
    if (name.find("create_fails") != std::string::npos) {
      EXPECT_TRUE(entry.plugin) << name;  // loads fine; only create() fails
    } else {
      EXPECT_FALSE(entry.plugin) << name;
      EXPECT_FALSE(entry.error.empty()) << name;
    }
  }
}

struct BrokenCase {
  const char* plugin;
  const char* cause;  // a substring the one-line error must contain
};

class BrokenPlugin : public ::testing::TestWithParam<BrokenCase> {};

TEST_P(BrokenPlugin, FailsWithOneLineNamingTheFileAndTheCause) {
  const BrokenCase& c = GetParam();
  const std::string error = loadError(c.plugin);
  EXPECT_NE(error.find("dtbench-strategy-" + std::string(c.plugin) + ".so"), std::string::npos) << error;
  EXPECT_NE(error.find(c.cause), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

INSTANTIATE_TEST_SUITE_P(
    LoaderErrors, BrokenPlugin,
    ::testing::Values(
        BrokenCase{"no_entry", "no entry symbol 'dtb_strategy_plugin_v1'"},
        BrokenCase{
            "future_abi",
            "built for plugin ABI v2 (exports dtb_strategy_plugin_v2); this dtbench supports ABI v1 only"},
        BrokenCase{"wrong_major", "descriptor declares ABI 2.0 but is exported as dtb_strategy_plugin_v1"},
        BrokenCase{"undersized", "descriptor struct_size is"},
        BrokenCase{"null_descriptor", "dtb_strategy_plugin_v1() returned NULL"},
        BrokenCase{"missing_step", "required member 'step' is NULL"},
        BrokenCase{"bad_default", "parameter 'bucket_cap_mb': default 'fast' is not a valid int"},
        BrokenCase{"model_not_strategy", "is a model plugin (exports dtb_model_plugin_v1)"},
        BrokenCase{"name_mismatch", "names the plugin 'other_name' but the file name says 'name_mismatch'"},
        BrokenCase{"wrong_kind_field", "descriptor kind is 3 (model), expected 1 (strategy)"},
        BrokenCase{"not_a_library", "cannot load: file too short"}),
    [](const auto& test) { return std::string(test.param.plugin); });

TEST(PluginLoader, UnknownNameSaysWhereItLooked) {
  try {
    goodLoader().load(PluginKind::kStrategy, "zero");
    FAIL() << "loaded a plugin that does not exist";
  } catch (const PluginError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("dtbench-strategy-zero.so"), std::string::npos) << what;
    EXPECT_NE(what.find("no such strategy plugin"), std::string::npos) << what;
    EXPECT_NE(what.find(kTestPluginDir.string()), std::string::npos) << what;
  }
}

TEST(PluginLoader, MissingPathIsNamed) {
  EXPECT_THROW(goodLoader().load(PluginKind::kStrategy, "/nonexistent/dtbench-strategy-x.so"), PluginError);
}

// A private copy of a working plugin in a directory we can chmod.
class WritableByOthers : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = dir_ / "dtbench-strategy-example_c.so";
    fs::copy_file(kTestPluginDir / "dtbench-strategy-example_c.so", file_);
    fs::permissions(file_, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
  }
  testing::TempDir temp_;
  const fs::path& dir_ = temp_.path();
  fs::path file_;
};

TEST_F(WritableByOthers, PrivateCopyLoads) {
  EXPECT_NO_THROW(PluginLoader(SearchPath({dir_})).load(PluginKind::kStrategy, "example_c"));
}

TEST_F(WritableByOthers, RefusesAWorldWritableDirectory) {
  fs::permissions(dir_, fs::perms::all);
  try {
    PluginLoader(SearchPath({dir_})).load(PluginKind::kStrategy, "example_c");
    FAIL() << "loaded from a world-writable directory";
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find("is writable by other users"), std::string::npos) << e.what();
  }
}

TEST_F(WritableByOthers, RefusesAWorldWritableFile) {
  fs::permissions(file_, fs::perms::others_write, fs::perm_options::add);
  try {
    PluginLoader(SearchPath({dir_})).load(PluginKind::kStrategy, "example_c");
    FAIL() << "loaded a world-writable file";
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find("the file is writable by other users"), std::string::npos)
        << e.what();
  }
}

TEST_F(WritableByOthers, RefusesAGroupWritableDirectory) {
  fs::permissions(dir_, fs::perms::group_write, fs::perm_options::add);
  try {
    PluginLoader(SearchPath({dir_})).load(PluginKind::kStrategy, "example_c");
    FAIL() << "loaded from a group-writable directory";
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find("is writable by its group"), std::string::npos) << e.what();
  }
}

// As sshd's StrictModes: whoever can write any directory above the plugin
// can rename the plugin's folder away and put their own in its place.
TEST_F(WritableByOthers, RefusesAWritableDirectoryHigherUp) {
  const fs::path inner = dir_ / "plugins";
  fs::create_directory(inner);
  fs::permissions(inner, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                             fs::perms::others_read | fs::perms::others_exec);
  fs::rename(file_, inner / file_.filename());
  fs::permissions(dir_, fs::perms::all);
  try {
    PluginLoader(SearchPath({inner})).load(PluginKind::kStrategy, "example_c");
    FAIL() << "loaded from under a world-writable directory";
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find("its directory " + fs::canonical(dir_).string() +
                                         " is writable by other users"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(WritableByOthers, RefusesAFileOwnedBySomeoneElse) {
  if (geteuid() != 0) GTEST_SKIP() << "giving a file away needs root";
  ASSERT_EQ(chown(file_.c_str(), 12345, 12345), 0);
  try {
    PluginLoader(SearchPath({dir_})).load(PluginKind::kStrategy, "example_c");
    FAIL() << "loaded a file another user owns";
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find("the file is owned by uid 12345, neither root nor you"),
              std::string::npos)
        << e.what();
  }
}

// /tmp: others may add files there but not replace ours.
TEST_F(WritableByOthers, AStickyRootDirectoryAboveIsAllowed) {
  struct stat parent {};
  ASSERT_EQ(stat(fs::canonical(dir_).parent_path().c_str(), &parent), 0);
  if (!(parent.st_mode & S_ISVTX) || parent.st_uid != 0)
    GTEST_SKIP() << "the temporary directory is not sticky";
  EXPECT_NO_THROW(PluginLoader(SearchPath({dir_})).load(PluginKind::kStrategy, "example_c"));
}

TEST(SearchPath, EnvironmentComesFirstAndMissingDirectoriesAreDropped) {
  setenv("DTBENCH_PLUGIN_PATH", (std::string("/nonexistent:") + kBrokenPluginDir.string()).c_str(), 1);
  SearchPath path = SearchPath::fromEnvironment();
  unsetenv("DTBENCH_PLUGIN_PATH");
  ASSERT_FALSE(path.dirs().empty());
  EXPECT_EQ(path.dirs().front(), fs::canonical(kBrokenPluginDir));
  for (const auto& dir : path.dirs()) EXPECT_NE(dir, fs::path("/nonexistent"));
}

TEST(SearchPath, EarlierDirectoryWins) {
  SearchPath path({kBrokenPluginDir});
  path.prepend(kTestPluginDir);
  EXPECT_EQ(path.dirs().front(), fs::canonical(kTestPluginDir));
  EXPECT_EQ(path.find(PluginKind::kStrategy, "example_c")->parent_path(), fs::canonical(kTestPluginDir));
}

}  // namespace
}  // namespace dtb::core
