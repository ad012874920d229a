// dtbench: benchmark distributed data-parallel training strategies.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "build_info.h"
#include "cli/check_command.h"
#include "cli/comm_command.h"
#include "cli/global_options.h"
#include "cli/new_command.h"
#include "cli/plugins_command.h"
#include "cli/project_command.h"
#include "cli/query_command.h"
#include "cli/report_command.h"
#include "cli/schema_command.h"
#include "cli/upgrade_command.h"
#include "cli/validate_command.h"
#include "cli/worker_command.h"
#include "log/log.h"
#include "log/redact.h"
#include "plugin/crash_report.h"

namespace dtb::cli {

void addPluginPathOption(CLI::App& app, GlobalOptions& options) {
  // A function, not the vector itself: each occurrence adds, whichever App
  // it was given to, where a bound vector would be replaced by the last.
  app.add_option_function<std::vector<std::string>>(
         "--plugin-path",
         [&options](const std::vector<std::string>& dirs) {
           options.pluginDirs.insert(options.pluginDirs.end(), dirs.begin(), dirs.end());
         },
         "Directory searched for plugins before the default path (repeatable)")
      ->type_name("DIR")
      ->allow_extra_args(false);
}

core::PluginLoader makeLoader(const GlobalOptions& options) {
  return core::PluginLoader(core::SearchPath::fromEnvironmentAfter(options.pluginDirs),
                            core::PluginLoader::Isolation::kTryInChildFirst);
}

}  // namespace dtb::cli

// Exit code for a command line dtbench cannot make sense of.
constexpr int kUsageError = 2;

namespace {

int runCommandLine(int argc, char** argv) {
  using namespace dtb;
  CLI::App app(
      "dtbench — benchmark how distributed data-parallel training synchronises gradients.\n\n"
      "Strategies (the baseline all-reduce, Horovod-style fusion, DDP-style buckets, ZeRO 1-3),\n"
      "communication backends (Gloo, MPI), models and datasets are plugins; `dtbench plugins`\n"
      "lists them with their parameters, `dtbench check` verifies this installation.\n\n"
      "Examples:\n"
      "  dtbench plugins                    every plugin on the plugin path\n"
      "  dtbench plugins --kind strategy    strategies only\n"
      "  dtbench plugins zero               one plugin, with all its parameters\n"
      "  dtbench check                      self-check of build, libraries, GPU, plugins\n"
      "  dtbench validate matrix.toml       check a matrix, list its cells\n"
      "  dtbench query results.db \"SQL\"     read results (read-only), e.g. FROM scaling\n"
      "  dtbench runs results.db            experiments and runs with their status\n"
      "  dtbench new strategy my_sgd        a new plugin's folder, built out of tree with CMake\n\n"
      "Plugins are looked for in --plugin-path, then $DTBENCH_PLUGIN_PATH (':'-separated),\n"
      "then <dtbench's bin>/../lib/dtbench/plugins, then the install prefix.",
      "dtbench");
  app.require_subcommand(0, 1);
  app.allow_extras();  // so an unknown command gets our message, below
  app.set_version_flag("--version", core::versionLine());

  cli::GlobalOptions global;
  cli::addPluginPathOption(app, global);
  app.add_flag("-v,--verbose", global.verbosity, "More log output (-v info, -vv debug)");
  app.parse_complete_callback([&] {
    if (global.verbosity >= 2) {
      core::setLogLevel(DTB_LOG_DEBUG);
    } else if (global.verbosity == 1) {
      core::setLogLevel(DTB_LOG_INFO);
    }
  });

  // The commands, in the order `dtbench --help` lists them.
  for (auto add : {cli::addPluginsCommand, cli::addCheckCommand, cli::addValidateCommand, cli::addRunCommand,
                   cli::addCommCommand, cli::addProjectCommand, cli::addQueryCommand, cli::addRunsCommand,
                   cli::addReportCommand, cli::addSchemaCommand, cli::addUpgradeCommand, cli::addNewCommand,
                   cli::addWorkerCommand})
    add(app, global);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dtbench: error: %s\n", core::redactSecrets(e.what()).c_str());
    return 1;
  }
  if (app.get_subcommands().empty()) {
    if (!app.remaining().empty()) {
      std::fprintf(stderr, "dtbench: unknown command '%s'; run `dtbench --help` for the commands\n",
                   app.remaining().front().c_str());
    } else {
      std::fprintf(stderr, "%s", app.help().c_str());
    }
    return kUsageError;
  }
  return global.exitCode;
}

}  // namespace

int main(int argc, char** argv) {
  dtb::core::crash::installHandlers();  // a plugin that takes dtbench down is named
  // Commands catch what they expect; this is for what setting up the command
  // line itself might throw (a bad_alloc, a CLI11 construction error), so it
  // ends in a message and a status instead of std::terminate.
  try {
    return runCommandLine(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dtbench: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "dtbench: internal error (an exception of unknown type)\n");
  }
  return 1;
}
