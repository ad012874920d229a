// Matrix files: what they expand to, and one clear problem per mistake, at
// the right line and column, all reported together.
#include "matrix/planner.h"

#include <gtest/gtest.h>

#include "matrix/run_schema.h"
#include "matrix_test_support.h"

namespace dtb::core {
namespace {

const std::string kHeader = R"(
[experiment]
name = "t"

[run]
model = "linear"
dataset = "tiny"
strategy = "example_c"
backend = "single"
)";

Plan plan(const std::string& text) {
  return planMatrix(parseMatrix("m.toml", text), testing::matrixTestLoader());
}

// The problems of a matrix that must not plan, as formatted lines.
std::vector<std::string> problems(const std::string& text) {
  return testing::problemsOf([&] { plan(text); }, text);
}

using testing::anyLineContains;

TEST(Planner, FixedValuesMakeOneCellWithEveryDefault) {
  Plan p = plan(kHeader);
  ASSERT_EQ(p.cells.size(), 1u);
  EXPECT_EQ(p.repeats, 1);
  const Cell& cell = p.cells[0];
  EXPECT_EQ(cell.integer("world_size"), 1);
  EXPECT_EQ(cell.text("optimizer"), "sgd");              // run default
  EXPECT_EQ(cell.text("strategy.example_c.op"), "avg");  // plugin default
  EXPECT_EQ(cell.text("model.linear.init_scale"), "0.01");
  EXPECT_EQ(cell.text("dataset.tiny.samples"), "64");
  EXPECT_EQ(p.plugins.size(), 4u);
}

#ifdef DTBENCH_HAVE_NCCL
// A CPU cell over a backend that moves GPU memory only is refused before
// anything runs, at the backend's line, with where it does work.
TEST(Planner, AGpuOnlyBackendCannotCarryTraining) {
  std::string text = kHeader;
  text.replace(text.find("backend = \"single\""), 18, "backend = [\"single\", \"nccl\"]");
  const std::vector<std::string> lines = problems(text);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(anyLineContains(lines, "m.toml:9:11: error: backend 'nccl' (cell 1) moves GPU memory only"))
      << lines[0];
  EXPECT_TRUE(anyLineContains(lines, "dtbench comm --backend nccl")) << lines[0];
}
#endif

TEST(Planner, ArraysAreAxesAndAxesAreCrossed) {
  Plan p = plan(kHeader + "world_size = [1, 2, 4]\noptimizer = [\"sgd\", \"adam\"]\n");
  ASSERT_EQ(p.cells.size(), 6u);
  // The first axis in the file varies slowest.
  EXPECT_EQ(p.cells[0].integer("world_size"), 1);
  EXPECT_EQ(p.cells[1].integer("world_size"), 1);
  EXPECT_EQ(p.cells[1].text("optimizer"), "adam");
  EXPECT_EQ(p.cells[5].integer("world_size"), 4);
  for (size_t i = 0; i < p.cells.size(); ++i) EXPECT_EQ(p.cells[i].index, int(i));
}

TEST(Planner, ZipVariesKeysTogether) {
  Plan p = plan(kHeader +
                "world_size = [1, 2, 4]\nbatch_size = [64, 32, 16]\n"
                "[matrix]\nzip = [[\"world_size\", \"batch_size\"]]\n");
  ASSERT_EQ(p.cells.size(), 3u);
  for (const Cell& c : p.cells) EXPECT_EQ(c.integer(kGlobalBatchKey), 64);
}

TEST(Planner, DerivedValuesAreExplicit) {
  Plan p = plan(kHeader + "world_size = [1, 4]\nbatch_size = 32\nlr = 0.1\nlr_scaling = \"linear\"\n");
  EXPECT_EQ(p.cells[1].integer(kGlobalBatchKey), 128);
  EXPECT_DOUBLE_EQ(std::get<double>(*p.cells[1].find(kEffectiveLrKey)), 0.4);
  Plan flat = plan(kHeader + "world_size = 4\nlr = 0.1\n");
  EXPECT_DOUBLE_EQ(std::get<double>(*flat.cells[0].find(kEffectiveLrKey)), 0.1);
}

TEST(Planner, PluginParameterAxesApplyToTheirPluginsCellsOnly) {
  Plan p =
      plan(kHeader + "[model.linear]\ninit_scale = [0.1, 0.2, 0.3]\n[strategy.example_c]\nop = \"sum\"\n");
  ASSERT_EQ(p.cells.size(), 3u);
  EXPECT_EQ(p.cells[2].text("model.linear.init_scale"), "0.3");
  EXPECT_EQ(p.cells[0].text("strategy.example_c.op"), "sum");
  EXPECT_EQ(p.cells[0].pluginParams("strategy").at("op"), ParamValue(std::string("sum")));
}

TEST(Planner, ExcludeDropsAndIncludeAdds) {
  Plan p = plan(kHeader +
                "world_size = [1, 2, 4]\noptimizer = [\"sgd\", \"adam\"]\n[matrix]\n"
                "exclude = [{ optimizer = \"adam\", world_size = [2, 4] }]\n"
                "include = [{ world_size = 8, optimizer = \"adamw\" }]\nrepeats = 3\n");
  ASSERT_EQ(p.cells.size(), 5u);  // 6 - 2 + 1
  EXPECT_EQ(p.repeats, 3);
  EXPECT_EQ(p.cells[4].integer("world_size"), 8);
  EXPECT_EQ(p.cells[4].text("optimizer"), "adamw");
  for (const Cell& c : p.cells) EXPECT_FALSE(c.text("optimizer") == "adam" && c.integer("world_size") > 1);
}

TEST(Planner, ExcludeMayNamePluginParameters) {
  Plan p = plan(kHeader +
                "[model.linear]\ninit_scale = [0.1, 0.2]\n[matrix]\n"
                "exclude = [{ \"model.linear.init_scale\" = 0.2 }]\n");
  ASSERT_EQ(p.cells.size(), 1u);
}

TEST(Planner, IncludeMaySetPluginParameters) {
  Plan p = plan(kHeader +
                "[model.linear]\ninit_scale = [0.1, 0.2]\n[matrix]\n"
                "include = [{ world_size = 2, \"strategy.example_c.op\" = \"sum\" }]\n");
  ASSERT_EQ(p.cells.size(), 4u);  // 2 + the include crossed with init_scale
  EXPECT_EQ(p.cells[2].text("strategy.example_c.op"), "sum");
  EXPECT_EQ(p.cells[2].integer("world_size"), 2);
  EXPECT_EQ(p.cells[3].text("model.linear.init_scale"), "0.2");
  auto lines = problems(kHeader + "[matrix]\ninclude = [{ \"strategy.example_c.opp\" = \"sum\" }]\n");
  EXPECT_TRUE(anyLineContains(lines, "unknown key 'strategy.example_c.opp' in include"));
}

TEST(Planner, ConfigKeyIgnoresOnlyTheScale) {
  Plan p = plan(kHeader + "world_size = [1, 2]\nlr_scaling = \"linear\"\noptimizer = [\"sgd\", \"adam\"]\n");
  EXPECT_EQ(p.cells[0].configKey(), p.cells[2].configKey());  // sgd at 1 and 2 ranks
  EXPECT_NE(p.cells[0].configKey(), p.cells[1].configKey());  // sgd vs adam
}

TEST(PlannerErrors, TomlSyntaxErrorPointsAtTheLine) {
  auto lines = problems("[experiment]\nname = \"x\"\n[run]\nmodel = \"linear\n");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0].starts_with("m.toml:4:")) << lines[0];
  EXPECT_NE(lines[0].find("TOML syntax"), std::string::npos);
}

TEST(PlannerErrors, EveryProblemAtOnceInFileOrder) {
  auto lines = problems(kHeader + "word_size = 2\nepochs = \"two\"\nlr = []\n");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0],
            "m.toml:10:13: error: unknown key 'word_size' in [run] (did you mean 'world_size'?); "
            "plugin parameters go in [KIND.NAME] tables");
  EXPECT_EQ(lines[1], "m.toml:11:10: error: 'epochs' expects int, got a string");
  EXPECT_EQ(lines[2], "m.toml:12:6: error: empty axis 'lr': give at least one value");
}

TEST(PlannerErrors, OutOfRangeAndBadChoice) {
  auto lines = problems(kHeader + "world_size = [1, 0]\noptimizer = \"lamb\"\n");
  EXPECT_TRUE(anyLineContains(lines, "m.toml:10:18: error: 'world_size': 0 is below the minimum 1"));
  EXPECT_TRUE(
      anyLineContains(lines, "m.toml:11:13: error: 'optimizer': 'lamb' is not one of: sgd, adam, adamw"));
}

TEST(PlannerErrors, UnknownPluginNamesTheValueAndWhatExists) {
  auto lines = problems(R"([experiment]
name = "t"
[run]
model = "linear"
dataset = "tiny"
strategy = ["example_c", "example_cc"]
backend = "single"
)");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0].starts_with("m.toml:6:12: error: cannot use strategy 'example_cc':")) << lines[0];
  EXPECT_NE(lines[0].find("did you mean 'example_c'?"), std::string::npos) << lines[0];
}

TEST(PlannerErrors, UnknownPluginParameterGetsAHint) {
  auto lines = problems(kHeader + "[strategy.example_c]\nopp = \"sum\"\nwait_timeout_ms = true\n");
  EXPECT_TRUE(anyLineContains(lines,
                              "m.toml:11:7: error: unknown parameter 'opp' of strategy 'example_c' "
                              "(did you mean 'op'?)"));
  EXPECT_TRUE(anyLineContains(
      lines, "m.toml:12:19: error: 'strategy.example_c.wait_timeout_ms' expects int, got a boolean"));
}

// Issue 17: DeepSpeed writes integers as floats (reduce_bucket_size = 5e8).
TEST(Planner, AnIntGivenAsAWholeFloatIsThatInt) {
  Plan p = plan(kHeader + "batch_size = 3.2e1\n[strategy.example_c]\nwait_timeout_ms = [5e3, 2.5e1]\n");
  ASSERT_EQ(p.cells.size(), 2u);
  EXPECT_EQ(p.cells[0].integer("batch_size"), 32);
  EXPECT_EQ(p.cells[0].integer("strategy.example_c.wait_timeout_ms"), 5000);
  EXPECT_EQ(p.cells[1].integer("strategy.example_c.wait_timeout_ms"), 25);
}

TEST(PlannerErrors, AnIntGivenAsAFractionNamesKeyFileAndLine) {
  auto lines = problems(kHeader + "[strategy.example_c]\nwait_timeout_ms = 5.5\nop = \"sum\"\n");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "m.toml:11:19: error: 'strategy.example_c.wait_timeout_ms' expects int, got 5.5, which is not a "
            "whole number (a float is taken for an int only when it is one, e.g. 5e8)");
  EXPECT_TRUE(
      anyLineContains(problems(kHeader + "epochs = 1e300\n"), "'epochs' expects int, got "));  // past any int
}

// An emulated network shapes only the links between hosts: a cell whose
// ranks all run here (launcher local, or auto for a non-MPI backend) is
// warned about; one that an MPI job or mpirun spreads over hosts is not.
TEST(Planner, ANetworkOnACellWhoseRanksAllRunHereIsAWarning) {
  Plan local = plan(kHeader + "network = \"10gbe\"\n");
  ASSERT_EQ(local.warnings.size(), 1u);
  EXPECT_EQ(
      local.warnings[0].format(),
      "m.toml:10:11: warning: cell 0 sets network = \"10gbe\" but runs every rank on this host (launcher "
      "local): the emulated network shapes the links between hosts, and none of its traffic crosses one "
      "(launcher mpirun or ssh with a hostfile does)");
  EXPECT_TRUE(plan(kHeader + "network = \"10gbe\"\nlauncher = \"mpirun\"\n").warnings.empty());
  std::string mpi = kHeader;  // auto is mpirun for the MPI backend
  const std::string single = "backend = \"single\"";
  mpi.replace(mpi.find(single), single.size(), "backend = \"mpi\"");
  EXPECT_TRUE(plan(mpi + "network = \"10gbe\"\n").warnings.empty());
  EXPECT_TRUE(plan(kHeader + "network = \"none\"\n").warnings.empty());
}

// Issue 17: commenting a value out of an axis must not make its table an error.
TEST(Planner, PluginTableNoCellUsesIsAWarning) {
  Plan p = plan(kHeader + "[strategy.bucketd]\nbucket_cap_mb = 25\n");
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_EQ(p.warnings[0].format(),
            "m.toml:10:1: warning: [strategy.bucketd] configures strategy 'bucketd', which no cell uses; "
            "its parameters are not checked");
  // Beside an error, it is still only a warning.
  try {
    plan(kHeader + "epochs = 0\n[strategy.zero]\nstage = 9\n");
    ADD_FAILURE() << "planned";
  } catch (const MatrixError& e) {
    ASSERT_EQ(e.problems().size(), 2u);
    EXPECT_FALSE(e.problems()[0].warning);
    EXPECT_TRUE(e.problems()[1].warning);
  }
}

// Issue 17: DeepSpeed's train_batch_size = micro-batch x accumulation x world.
TEST(Planner, GlobalBatchCountsAccumulation) {
  Plan p = plan(kHeader + "world_size = 4\nbatch_size = 8\naccumulation_steps = [1, 3]\n");
  EXPECT_EQ(p.cells[0].integer(kGlobalBatchKey), 32);
  EXPECT_EQ(p.cells[1].integer(kGlobalBatchKey), 96);
}

// Issue 17: torchrun's words get dtbench's, with how they differ.
TEST(PlannerErrors, TorchrunWordsGetTheirTranslation) {
  auto lines = problems(kHeader + "nproc_per_node = 2\ngradient_accumulation_steps = 4\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(
      lines[0].starts_with("m.toml:10:18: error: unknown key 'nproc_per_node' in [run] (did you mean "
                           "'world_size'? dtbench's world_size is the total number of ranks over "
                           "every host, torchrun's nnodes x nproc_per_node;"))
      << lines[0];
  EXPECT_TRUE(anyLineContains(lines,
                              "unknown key 'gradient_accumulation_steps' in [run] (did you mean "
                              "'accumulation_steps'?)"));
}

TEST(PlannerErrors, RendezvousStoreInTorchrunsForm) {
  auto lines =
      problems(kHeader + "rendezvous_store = [\"redis://h:6379\", \"node0:29500\", \"tcp://h:1\"]\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(
      lines[0],
      "m.toml:10:39: error: 'rendezvous_store': \"node0:29500\" is torchrun's HOST:PORT (its TCP store); "
      "dtbench's ranks meet through a Redis server: write \"redis://node0:29500\" if Redis listens there, "
      "or \"\" for a file store in the run directory");
  EXPECT_TRUE(
      anyLineContains(lines, "m.toml:10:54: error: 'rendezvous_store': \"tcp://h:1\" is not a store"));
}

TEST(PlannerErrors, ContradictingZips) {
  auto lines = problems(kHeader +
                        "world_size = [1, 2]\nbatch_size = [8, 16, 32]\nepochs = 1\n[matrix]\n"
                        "zip = [[\"world_size\", \"batch_size\"], [\"world_size\", \"epochs\"]]\n");
  EXPECT_TRUE(
      anyLineContains(lines, "zip group lengths differ: 'world_size' has 2 values, 'batch_size' has 3"));
  EXPECT_TRUE(anyLineContains(lines, "zip names 'epochs', which is not an axis"));
  EXPECT_TRUE(anyLineContains(lines, "'world_size' is in two zip groups"));
}

TEST(PlannerErrors, StructuralMistakes) {
  auto lines = problems("[experiment]\nname = \"t\"\nowner = \"me\"\n[runs]\nx = 1\n[matrix]\nrepeat = 2\n");
  EXPECT_TRUE(anyLineContains(lines, "m.toml:3:9: error: unknown key 'owner' in [experiment]"));
  EXPECT_TRUE(anyLineContains(lines, "m.toml:4:1: error: unknown table [runs]"));
  EXPECT_TRUE(anyLineContains(lines, "m.toml:7:10: error: unknown key 'repeat' in [matrix]"));
}

TEST(PlannerErrors, RequiredRunKeys) {
  auto lines =
      problems("[experiment]\nname = \"t\"\n[run]\nstrategy = \"example_c\"\nbackend = \"single\"\n");
  EXPECT_TRUE(anyLineContains(lines, "[run] needs 'model'"));
  EXPECT_TRUE(anyLineContains(lines, "[run] needs 'dataset'"));
}

TEST(PlannerErrors, EverythingExcluded) {
  auto lines = problems(kHeader + "[matrix]\nexclude = [{ world_size = 1 }]\n");
  EXPECT_TRUE(anyLineContains(lines, "no cells are left: every combination is excluded"));
}

TEST(PlannerErrors, IncludeOfAnAxisMustSetIt) {
  auto lines = problems(kHeader +
                        "world_size = [1, 2]\noptimizer = [\"sgd\", \"adam\"]\n[matrix]\n"
                        "include = [{ world_size = 8 }]\n");
  EXPECT_TRUE(anyLineContains(lines, "an include entry leaves axis 'optimizer' unset"));
}

TEST(MatrixFile, TheExampleMatricesValidate) {
  for (const char* file : {"examples/matrices/tour.toml", "examples/quickstart.toml"}) {
    Plan p =
        planMatrix(readMatrixFile(std::string(DTBENCH_SOURCE_DIR) + "/" + file), testing::matrixTestLoader());
    EXPECT_FALSE(p.cells.empty()) << file;
  }
}

}  // namespace
}  // namespace dtb::core
