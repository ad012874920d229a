#include "cli/validate_command.h"

#include <cstdio>
#include <memory>

#include "cli/plan_table.h"
#include "matrix/matrix_file.h"
#include "matrix/planner.h"
#include "run/coordinator.h"

namespace dtb::cli {
namespace {

struct Options {
  std::string file;
  size_t show = 20;
  bool all = false;
  bool dryRun = false;
  std::string db = "results.db";
};

int run(const GlobalOptions& global, const Options& options, bool execute) {
  core::Plan plan;
  core::MatrixFile matrix;
  try {
    matrix = core::readMatrixFile(options.file);
    plan = core::planMatrix(matrix, makeLoader(global));
  } catch (const core::MatrixError& e) {
    for (const core::Problem& p : e.problems()) std::fprintf(stderr, "%s\n", p.format().c_str());
    std::fprintf(stderr, "%s: %zu problem%s; nothing was run\n", options.file.c_str(), e.problems().size(),
                 e.problems().size() == 1 ? "" : "s");
    return 1;
  }
  if (execute) {
    core::CoordinatorOptions run;
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

CLI::App* addMatrixOptions(CLI::App* cmd, std::shared_ptr<Options> options) {
  cmd->add_option("file", options->file, "The matrix (TOML)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--show", options->show, "Cells to list (default 20)");
  cmd->add_flag("--all", options->all, "List every cell");
  return cmd;
}

}  // namespace

void addValidateCommand(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<Options>();
  CLI::App* cmd = addMatrixOptions(
      app.add_subcommand("validate", "Check a matrix file, print its cells and every problem at once"),
      options);
  cmd->allow_extras(false);
  cmd->callback([&global, options] { global.exitCode = run(global, *options, false); });
}

void addRunCommand(CLI::App& app, GlobalOptions& global) {
  auto options = std::make_shared<Options>();
  CLI::App* cmd = addMatrixOptions(app.add_subcommand("run",
                                                      "Run every cell of a matrix with real worker processes "
                                                      "(local, mpirun or srun); results go to --db"),
                                   options);
  cmd->add_flag("--dry-run", options->dryRun,
                "Validate, list cells and the plugins that would load; run nothing");
  cmd->add_option("--db", options->db, "The result store (SQLite file; created if missing)");
  cmd->allow_extras(false);
  cmd->callback([&global, options] { global.exitCode = run(global, *options, !options->dryRun); });
}

}  // namespace dtb::cli
