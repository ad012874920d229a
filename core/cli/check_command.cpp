#include "cli/check_command.h"

#include <cstdio>
#include <map>
#include <string>
#include <string_view>

#include "build_info.h"
#include "cuda/cuda_probe.h"
#include "host/plugin_instance.h"
#include "plugin/isolated_call.h"

namespace dtb::cli {
namespace {

// What smokeTest() returns for a problem that is only a note.
constexpr std::string_view kNote = "note: ";

// Creates and destroys one instance with default parameters, where that
// needs nothing from a run: strategies (over no parameters) and datasets
// whose parameters all have defaults. Returns the problem, a note (kNote
// first), or "".
std::string smokeTest(const std::shared_ptr<const core::LoadedPlugin>& plugin) {
  for (const core::ParamSpec& spec : plugin->params()) {
    if (!spec.defaultValue) return "";  // needs user input: nothing to try
  }
  try {
    if (plugin->kind() == core::PluginKind::kStrategy) {
      dtb_strategy_setup_t setup{};
      setup.struct_size = sizeof(setup);
      setup.accumulation_steps = 1;
      core::createStrategy(plugin, {}, setup);
    } else if (plugin->kind() == core::PluginKind::kDataset) {
      auto dataset = core::openDataset(plugin, {});
      dtb_dataset_info_t info{};
      info.struct_size = sizeof(info);
      dataset->check("info", plugin->descriptor<dtb_dataset_plugin_v1_t>().info(dataset->context(), &info));
    }
  } catch (const core::PluginCallError& e) {
    // A dataset whose default files are not there yet works; say so only.
    if (plugin->kind() == core::PluginKind::kDataset && e.status() == DTB_STATUS_IO_ERROR) {
      return std::string(kNote) + e.what();
    }
    return e.what();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// What checking one plugin found: a problem (it failed), a note (it loads,
// but its defaults do not work as things stand: a dataset whose default
// files are missing), or neither.
struct Outcome {
  std::string problem;
  std::string note;
};

// smokeTest() in a child process: a plugin that crashes, exits or hangs in
// create() is reported like any other failure, and the check goes on.
Outcome smokeTestIsolated(const std::shared_ptr<const core::LoadedPlugin>& plugin) {
  const core::IsolatedOutcome tried =
      core::runIsolated([&] { return smokeTest(plugin); }, std::chrono::seconds(30));
  if (!tried.completed) return {tried.death + " while creating an instance with default parameters", ""};
  if (tried.result.starts_with(kNote)) return {"", tried.result.substr(kNote.size())};
  return {tried.result, ""};
}

// What the build uses each library it found for. The build also records
// what it merely found (cuDNN comes with the CUDA toolkit), which no part
// of dtbench uses yet; the check must not list it as if it were a working
// part.
std::string usedFor(const std::string& library) {
  static const std::map<std::string, std::string, std::less<>> kUses = {
      {"SQLite", "the result store"},  {"toml++", "matrix files"},
      {"Gloo", "the gloo backend"},    {"oneDNN", "the models' layers"},
      {"Open MPI", "the mpi backend"}, {"CUDA", "GPU memory and timing, gpu: below"},
      {"NCCL", "the nccl backend"},
  };
  const auto it = kUses.find(library);
  return it == kUses.end() ? "" : it->second;
}

void printLibraries(const core::BuildInfo& build) {
  for (const auto& [library, version] : build.libraries) {
    const std::string use = usedFor(library);
    if (use.empty()) {
      std::printf("found:    %s %s (not used: no part of dtbench uses it yet)\n", library.c_str(),
                  version.c_str());
    } else {
      std::printf("library:  %s %s (%s)\n", library.c_str(), version.c_str(), use.c_str());
    }
  }
}

// Which GPU paths this machine can take, and why not: GPU memory through
// the host, and each backend that moves GPU memory (nccl).
void printGpuPaths(const core::CudaProbe& gpus, core::PluginLoader& loader) {
  const std::string why = gpus.devices.empty() ? "not usable here: " + gpus.problem : "";
  std::printf("gpu path: GPU memory through the host (alloc on DTB_DEVICE_CUDA): %s\n",
              why.empty() ? "usable" : why.c_str());
  for (const auto& found : loader.discover()) {
    if (!found.plugin || found.kind != core::PluginKind::kBackend || found.shadowed) continue;
    const uint32_t caps = found.plugin->descriptor<dtb_backend_plugin_v1_t>().capabilities;
    if (!(caps & DTB_BACKEND_CAP_CUDA_MEMORY)) continue;
    const std::string& name = found.plugin->name();
    if (why.empty()) {
      std::printf("gpu path: backend %s: usable on %zu GPU%s (dtbench comm --backend %s --ranks %zu)\n",
                  name.c_str(), gpus.devices.size(), gpus.devices.size() == 1 ? "" : "s", name.c_str(),
                  gpus.devices.size());
    } else {
      std::printf("gpu path: backend %s: %s\n", name.c_str(), why.c_str());
    }
  }
}

int run(const GlobalOptions& global) {
  int problems = 0;
  const core::BuildInfo& build = core::buildInfo();
  std::printf("%s\n", core::versionLine().c_str());
  std::printf("compiler: %s\n", build.compiler.c_str());
  printLibraries(build);

  core::PluginLoader loader = makeLoader(global);
  std::printf("plugin path:");
  for (const auto& dir : loader.searchPath().dirs()) std::printf(" %s", dir.c_str());
  std::printf("\n");
  int ok = 0;
  int noted = 0;
  // One line per plugin file, each counted once: ok, note (it loads, but
  // its defaults do not work as things stand) or FAILED.
  for (const auto& found : loader.discover()) {
    const std::string kind(core::kindName(found.kind));
    const Outcome outcome = found.plugin ? smokeTestIsolated(found.plugin) : Outcome{found.error, ""};
    const std::string shadowed =
        found.shadowed ? " (shadowed by an earlier one of this name: " + found.file.string() + " is not used)"
                       : "";
    if (!outcome.problem.empty()) {
      ++problems;
      std::printf("  FAILED  %-9s %s: %s\n", kind.c_str(), found.file.c_str(), outcome.problem.c_str());
    } else if (!outcome.note.empty()) {
      ++noted;
      std::printf("  note    %-9s %s%s: loads, but cannot open its default data: %s\n", kind.c_str(),
                  found.plugin->name().c_str(), shadowed.c_str(), outcome.note.c_str());
    } else {
      ++ok;
      std::printf("  ok      %-9s %s%s\n", kind.c_str(), found.plugin->name().c_str(), shadowed.c_str());
    }
  }
  std::printf("plugins:  %d ok, ", ok);
  if (noted > 0) std::printf("%d with a note, ", noted);
  std::printf("%d failed\n", problems);
  // After the plugins: their checks run in forked children, and a process
  // that has initialised CUDA cannot use it again in a fork.
  const core::CudaProbe gpus = core::probeCuda();
  std::printf("gpu:      %s\n", core::describe(gpus).c_str());
  printGpuPaths(gpus, loader);
  std::printf("self-check: %s\n", problems == 0 ? "ok" : "FAILED");
  return problems == 0 ? 0 : 1;
}

}  // namespace

void addCheckCommand(CLI::App& app, GlobalOptions& global) {
  CLI::App* cmd = app.add_subcommand(
      "check", "Self-check: build, libraries, GPU, and every plugin on the path loaded and created");
  addPluginPathOption(*cmd, global);
  cmd->allow_extras(false);
  cmd->callback([&global] { global.exitCode = run(global); });
}

}  // namespace dtb::cli
