// Plugin parameters that are paths (issue 17): a relative one is read from
// the matrix file's directory, not the working directory, and one that is
// not there is reported at its line.
#include "matrix/path_params.h"

#include <gtest/gtest.h>

#include <fstream>

#include "matrix/planner.h"
#include "matrix_test_support.h"
#include "temp_dir.h"

namespace dtb::core {
namespace {

std::string matrix(const std::string& dataset) {
  return "[experiment]\nname = \"t\"\n[run]\nmodel = \"linear\"\ndataset = \"idx\"\nstrategy = "
         "\"example_c\"\nbackend = \"single\"\n[dataset.idx]\n" +
         dataset;
}

TEST(PathParams, TheNameSaysWhichAreNamesOfFiles) {
  auto spec = [](const char* name, dtb_param_type_t type) {
    return ParamSpec{name, type, {}, "", {}, {}, {}};
  };
  EXPECT_TRUE(isPathParam(spec("path", DTB_PARAM_STRING)));
  EXPECT_TRUE(isPathParam(spec("cache_dir", DTB_PARAM_STRING)));
  EXPECT_TRUE(isPathParam(spec("labels_file", DTB_PARAM_STRING)));
  EXPECT_FALSE(isPathParam(spec("path", DTB_PARAM_INT)));
  EXPECT_FALSE(isPathParam(spec("stem", DTB_PARAM_STRING)));
  EXPECT_FALSE(isPathParam(spec("xpath", DTB_PARAM_STRING)));
}

TEST(PathParams, ARelativePathIsReadFromTheMatrixFilesDirectory) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir / "exp/data/mnist");
  const std::string file = (dir / "exp/m.toml").string();
  Plan p = planMatrix(parseMatrix(file, matrix("path = [\"data/mnist\", \"/abs/elsewhere\"]\n")),
                      testing::matrixTestLoader());
  ASSERT_EQ(p.cells.size(), 2u);
  EXPECT_EQ(p.cells[0].text("dataset.idx.path"), (dir / "exp/data/mnist").string());
  EXPECT_EQ(p.cells[1].text("dataset.idx.path"), "/abs/elsewhere");  // absolute: as written
  // Only the absolute one that is not there is a warning, at its element.
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_EQ(p.warnings[0].format(),
            file +
                ":9:23: warning: 'dataset.idx.path': /abs/elsewhere does not exist here (a relative path is "
                "read from the matrix file's directory); every run that uses it on this machine will fail");
}

TEST(PathParams, AMissingPathIsReportedAtItsLine) {
  testing::TempDir dir;
  const std::string file = (dir / "m.toml").string();
  Plan p = planMatrix(parseMatrix(file, matrix("path = \"../data/mnist\"\n")), testing::matrixTestLoader());
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_EQ(p.warnings[0].format(),
            file + ":9:8: warning: 'dataset.idx.path': ../data/mnist is " +
                (dir.path().parent_path() / "data/mnist").string() +
                ", which does not exist here (a relative path is read from the matrix "
                "file's directory); every run that uses it on this machine will fail");
}

TEST(PathParams, ExcludeRulesCompareResolvedPaths) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir / "a");
  std::filesystem::create_directories(dir / "b");
  const std::string file = (dir / "m.toml").string();
  Plan p = planMatrix(
      parseMatrix(file,
                  matrix("path = [\"a\", \"b\"]\n[matrix]\nexclude = [{ \"dataset.idx.path\" = \"b\" }]\n")),
      testing::matrixTestLoader());
  ASSERT_EQ(p.cells.size(), 1u);
  EXPECT_EQ(p.cells[0].text("dataset.idx.path"), (dir / "a").string());
  EXPECT_TRUE(p.warnings.empty());
}

}  // namespace
}  // namespace dtb::core
