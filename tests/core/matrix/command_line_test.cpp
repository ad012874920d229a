// `dtbench run|validate --set KEY=VALUE --only EXPR` (issue 17): a key over
// the file's, read with the file's TOML rules; a subset of the cells. An
// unknown key is named, with the hint the file's unknown keys get.
#include <gtest/gtest.h>

#include "matrix/cell_filter.h"
#include "matrix/planner.h"
#include "matrix/run_schema.h"
#include "matrix_test_support.h"

namespace dtb::core {
namespace {

const std::string kMatrix = R"([experiment]
name = "t"

[run]
model = "linear"
dataset = "tiny"
strategy = "example_c"
backend = "single"
world_size = [1, 2]
epochs = 3

[model.linear]
init_scale = [0.1, 0.2]
)";

Plan plan(const std::vector<std::string>& sets, const std::vector<std::string>& only = {}) {
  Plan p = planMatrix(parseMatrix("m.toml", kMatrix, sets), testing::matrixTestLoader());
  filterCells(p, only);
  return p;
}

// The formatted problems of a command line that must not plan.
std::vector<std::string> commandLineProblems(const std::vector<std::string>& sets,
                                             const std::vector<std::string>& only = {}) {
  return testing::problemsOf([&] { plan(sets, only); });
}

TEST(MatrixSet, ValuesAreReadAsTomlAndReplaceTheFiles) {
  Plan p = plan({"epochs=1", "lr=0.1", "strategy.example_c.op=\"sum\"", "model.linear.init_scale=0.5"});
  ASSERT_EQ(p.cells.size(), 2u);  // init_scale is no longer an axis
  EXPECT_EQ(p.cells[0].integer("epochs"), 1);
  EXPECT_DOUBLE_EQ(p.cells[0].real("lr"), 0.1);  // a float, as in the file
  EXPECT_EQ(p.cells[1].text("strategy.example_c.op"), "sum");
  EXPECT_EQ(p.cells[1].text("model.linear.init_scale"), "0.5");
}

TEST(MatrixSet, ABareWordIsAStringAndAnArrayAnAxis) {
  Plan p = plan({"strategy.example_c.op=sum", "optimizer=[\"sgd\", \"adam\"]", "repeats=2"});
  ASSERT_EQ(p.cells.size(), 8u);
  EXPECT_EQ(p.repeats, 2);
  EXPECT_EQ(p.cells[0].text("strategy.example_c.op"), "sum");
  // A new axis from --set varies fastest of the [run] axes (plugin axes come after).
  EXPECT_EQ(p.cells[0].text("optimizer"), "sgd");
  EXPECT_EQ(p.cells[2].text("optimizer"), "adam");
  EXPECT_EQ(p.cells[2].integer("world_size"), 1);
}

using testing::anyLineContains;

TEST(MatrixSet, ProblemsNameTheOption) {
  auto lines =
      commandLineProblems({"epoch=1", "lr=\"fast\"", "strategy.example_cc.op=sum", "nproc_per_node=2"});
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_TRUE(anyLineContains(lines,
                              "--set epoch=1: error: unknown key 'epoch' in [run] (did you mean 'epochs'?); "
                              "plugin parameters go in [KIND.NAME] tables"));
  EXPECT_TRUE(anyLineContains(lines, "--set lr=\"fast\": error: 'lr' expects float, got a string"));
  EXPECT_TRUE(
      anyLineContains(lines,
                      "--set strategy.example_cc.op=sum: error: unknown key 'strategy.example_cc.op': no "
                      "cell uses strategy 'example_cc' (did you mean 'example_c'?)"));
  EXPECT_TRUE(anyLineContains(lines,
                              "--set nproc_per_node=2: error: unknown key 'nproc_per_node' in [run] (did you "
                              "mean 'world_size'? dtbench's world_size is the total number of ranks"));
  EXPECT_EQ(
      commandLineProblems({"noequals"}).at(0),
      "--set noequals: error: --set takes KEY=VALUE, e.g. --set epochs=1 or --set strategy.zero.stage=2");
  EXPECT_TRUE(anyLineContains(commandLineProblems({"experiment.name=x"}),
                              "--set experiment.name=x: error: unknown key "
                              "'experiment.name': --set takes a [run] key"));
}

TEST(MatrixOnly, EveryExpressionMustHoldAndCellsKeepTheirIndex) {
  Plan p = plan({}, {"world_size=2", "model.linear.init_scale=0.2"});
  ASSERT_EQ(p.cells.size(), 1u);
  EXPECT_EQ(p.cells[0].index, 3);
  EXPECT_EQ(p.cells[0].integer("world_size"), 2);
  EXPECT_EQ(plan({}, {"strategy=example_c"}).cells.size(), 4u);
  EXPECT_EQ(plan({}, {"global_batch_size=[64, 1000]"}).cells.size(), 2u);  // an array is "any of"
  Plan byIndex = plan({}, {"cells=0,3"});
  ASSERT_EQ(byIndex.cells.size(), 2u);
  EXPECT_EQ(byIndex.cells[1].index, 3);
}

TEST(MatrixOnly, ProblemsNameTheExpression) {
  auto lines =
      commandLineProblems({}, {"word_size=2", "world_size=two", "cells=0,x", "strategy.example_c.opp=sum"});
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "--only word_size=2: error: unknown key 'word_size' (did you mean 'world_size'?)");
  EXPECT_EQ(lines[1], "--only world_size=two: error: 'two' is not a valid int");
  EXPECT_EQ(lines[2],
            "--only cells=0,x: error: cells takes cell numbers separated by commas (cells=0,3), not 'x'");
  EXPECT_TRUE(
      lines[3].starts_with("--only strategy.example_c.opp=sum: error: unknown key "
                           "'strategy.example_c.opp' (did you mean 'strategy.example_c.op'?)"))
      << lines[3];
  EXPECT_EQ(commandLineProblems({}, {"world_size=4"}).at(0),
            "--only world_size=4: error: no cell of the matrix matches every --only");
}

}  // namespace
}  // namespace dtb::core
