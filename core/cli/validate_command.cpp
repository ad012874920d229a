#include "cli/validate_command.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "cli/foreign_flags.h"
#include "cli/plan_table.h"
#include "cli/sbatch_script.h"
#include "matrix/cell_filter.h"
#include "matrix/matrix_file.h"
#include "matrix/planner.h"
#include "run/coordinator.h"

namespace dtb::cli {
namespace {

struct MatrixCommandOptions {
  std::string file;
  size_t show = 20;
  bool all = false;
  bool dryRun = false;
  std::string db = "results.db";
  std::vector<std::string> sets;  // --set KEY=VALUE
  std::vector<std::string> only;  // --only EXPR
  std::string sbatch;             // --sbatch FILE: write a batch script instead of running
  int64_t nodes = 0;              // --nodes N for that script
};

// "--set epochs=1 --only strategy=bucketed", or "" without either.
std::string commandLineChanges(const MatrixCommandOptions& options) {
  std::string text;
  for (const std::string& set : options.sets) text += std::string(text.empty() ? "" : " ") + "--set " + set;
  for (const std::string& only : options.only)
    text += std::string(text.empty() ? "" : " ") + "--only " + only;
  return text;
}

// What the command line changed is stored with the experiment, in its
// description (what listings and reports show) and as a closing comment of
// the stored matrix text (the file itself stays as it was written).
void recordChanges(const MatrixCommandOptions& options, core::MatrixFile& matrix, core::Plan& plan) {
  const std::string changes = commandLineChanges(options);
  if (changes.empty()) return;
  plan.description += std::string(plan.description.empty() ? "" : " ") + "[run with " + changes + "]";
  if (!matrix.text.empty() && !matrix.text.ends_with("\n")) matrix.text += "\n";
  matrix.text += "# dtbench run " + changes + "\n";
}

// The --set arguments the matrix is read with: the user's, and for a
// batch script launcher = srun (planned now, so that a cell srun cannot
// run is refused here, not on the cluster).
std::vector<std::string> effectiveSets(const MatrixCommandOptions& options) {
  std::vector<std::string> sets = options.sets;
  if (!options.sbatch.empty()) sets.emplace_back("launcher=srun");
  return sets;
}

// Writes the batch script that runs this matrix inside a Slurm job.
int writeSbatch(const GlobalOptions& global, const MatrixCommandOptions& options, const core::Plan& plan) {
  namespace fs = std::filesystem;
  SbatchRequest request;
  request.jobName = plan.name;
  for (const core::Cell& cell : plan.cells)
    request.ntasks = std::max(request.ntasks, cell.integer("world_size"));
  request.nodes = options.nodes;
  const fs::path script = fs::absolute(options.sbatch);
  request.output = (script.parent_path() / (plan.name.empty() ? "dtbench" : plan.name)).string() + "-%j.out";
  request.workDir = fs::current_path().string();
  request.command.push_back(fs::read_symlink("/proc/self/exe").string());
  for (const std::string& dir : global.pluginDirs) {
    request.command.insert(request.command.end(), {"--plugin-path", fs::absolute(dir).string()});
  }
  request.command.insert(request.command.end(), {"run", fs::absolute(options.file).string(), "--db",
                                                 fs::absolute(options.db).string()});
  for (const std::string& set : effectiveSets(options))
    request.command.insert(request.command.end(), {"--set", set});
  for (const std::string& only : options.only)
    request.command.insert(request.command.end(), {"--only", only});
  std::string text;
  try {
    text = sbatchScript(request);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "dtbench run: cannot write %s: %s\n", script.c_str(), e.what());
    return 1;
  }
  std::FILE* out = std::fopen(script.c_str(), "w");
  if (!out || std::fwrite(text.data(), 1, text.size(), out) != text.size() || std::fclose(out) != 0) {
    std::fprintf(stderr, "dtbench run: cannot write %s: %s\n", script.c_str(), std::strerror(errno));
    return 1;
  }
  fs::permissions(script, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);
  std::printf(
      "dtbench run: wrote %s (%zu cell%s x %lld repeat%s, %lld tasks for the largest); submit it with:\n"
      "  sbatch %s\n",
      script.c_str(), plan.cells.size(), plan.cells.size() == 1 ? "" : "s",
      static_cast<long long>(plan.repeats), plan.repeats == 1 ? "" : "s",
      static_cast<long long>(request.ntasks), script.c_str());
  return 0;
}

int run(const GlobalOptions& global, const MatrixCommandOptions& options, bool execute) {
  core::Plan plan;
  core::MatrixFile matrix;
  try {
    matrix = core::readMatrixFile(options.file, effectiveSets(options));
    // Only a run here needs this machine's GPUs; a check or an sbatch script does not.
    const bool here = execute && options.sbatch.empty();
    plan = core::planMatrix(matrix, makeLoader(global),
                            here ? core::PlanScope::kRunHere : core::PlanScope::kCheckOnly);
    core::filterCells(plan, options.only);
  } catch (const core::MatrixError& e) {
    const auto& all = e.problems();
    const auto errors = static_cast<size_t>(
        std::count_if(all.begin(), all.end(), [](const core::Problem& p) { return !p.warning; }));
    for (const core::Problem& p : all) std::fprintf(stderr, "%s\n", p.format().c_str());
    const size_t warnings = all.size() - errors;
    std::string also;
    if (warnings > 0) also = " and " + std::to_string(warnings) + (warnings == 1 ? " warning" : " warnings");
    std::fprintf(stderr, "%s: %zu problem%s%s; nothing was run\n", options.file.c_str(), errors,
                 errors == 1 ? "" : "s", also.c_str());
    return 1;
  }
  for (const core::Problem& p : plan.warnings) std::fprintf(stderr, "%s\n", p.format().c_str());
  if (!options.sbatch.empty()) return writeSbatch(global, options, plan);
  if (execute) {
    recordChanges(options, matrix, plan);
    core::RunContext run;
    run.database = options.db;
    run.pluginDirs = global.pluginDirs;
    run.executable = std::filesystem::read_symlink("/proc/self/exe");
    return core::runMatrix(matrix, plan, run);
  }
  std::printf("%s\n\n", planSummary(options.file, plan).c_str());
  printCellTable(stdout, plan, options.all ? 0 : options.show);
  if (options.dryRun) {
    std::printf("\nplugins that would load:\n");
    for (const auto& [id, plugin] : plan.plugins) {
      std::printf("  %-9s %-16s %-8s %s\n", std::string(core::kindName(plugin->kind())).c_str(),
                  plugin->name().c_str(), plugin->version().c_str(), plugin->path().c_str());
    }
    std::printf("\ndry run: nothing was started\n");
  }
  return 0;
}

// Arguments CLI11 could not place, refused naming the flag and what to type
// instead (foreign_flags.h); true when there were any.
bool refuseExtras(const CLI::App& cmd, const MatrixCommandOptions& options, GlobalOptions& global) {
  const std::string error = foreignFlagsError(cmd.get_name(), cmd.remaining(), options.file);
  if (error.empty()) return false;
  std::fprintf(stderr, "%s\n", error.c_str());
  global.exitCode = static_cast<int>(CLI::ExitCodes::ExtrasError);
  return true;
}

CLI::App* addMatrixOptions(CLI::App* cmd, std::shared_ptr<MatrixCommandOptions> options) {
  // Not CLI::ExistingFile: after `-np 2 m.toml` it would say "File does not
  // exist: 2" before the callback could name -np (foreign_flags.h).
  cmd->add_option("file", options->file, "The matrix (TOML)")->required();
  cmd->add_option("--show", options->show, "Cells to list (default 20)");
  cmd->add_flag("--all", options->all, "List every cell");
  cmd->add_option("--set", options->sets,
                  "KEY=VALUE over the file's value, read as TOML (epochs=1, lr=0.1, strategy.zero.stage=2, "
                  "world_size=[1,2]); repeatable")
      ->allow_extra_args(false);  // one KEY=VALUE per --set: the matrix file stays positional
  cmd->add_option("--only", options->only,
                  "Only the cells where KEY=VALUE (strategy=bucketed, world_size=[2,4], cells=0,3); "
                  "repeatable, all must hold")
      ->allow_extra_args(false);
  return cmd;
}

}  // namespace

void addValidateCommand(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<MatrixCommandOptions>();
  CLI::App* cmd = addMatrixOptions(
      app.add_subcommand("validate", "Check a matrix file, print its cells and every problem at once"),
      options);
  addPluginPathOption(*cmd, global);
  cmd->allow_extras(true);  // refused in the callback, with what to type instead
  cmd->callback([&global, options, cmd] {
    if (refuseExtras(*cmd, *options, global)) return;
    global.exitCode = run(global, *options, false);
  });
}

void addRunCommand(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<MatrixCommandOptions>();
  CLI::App* cmd = addMatrixOptions(app.add_subcommand("run",
                                                      "Run every cell of a matrix with real worker processes "
                                                      "(local, mpirun or srun); results go to --db"),
                                   options);
  cmd->add_flag("--dry-run", options->dryRun,
                "Validate, list cells and the plugins that would load; run nothing");
  cmd->add_option("--db", options->db, "The result store (SQLite file; created if missing)")
      ->capture_default_str();
  cmd->add_option("--sbatch", options->sbatch,
                  "Write a Slurm batch script that runs this matrix with launcher = srun (submit it with "
                  "sbatch FILE); run nothing now");
  cmd->add_option("--nodes", options->nodes, "With --sbatch: the nodes to ask for (default: Slurm decides)")
      ->check(CLI::Range(int64_t{1}, int64_t{100000}));
  addPluginPathOption(*cmd, global);
  cmd->allow_extras(true);  // refused in the callback, with what to type instead
  cmd->callback([&global, options, cmd] {
    if (refuseExtras(*cmd, *options, global)) return;
    global.exitCode = run(global, *options, !options->dryRun);
  });
}

}  // namespace dtb::cli
