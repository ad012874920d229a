#include "cli/plugins_command.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

#include "host/plugin_config.h"
#include "plugin/plugin_error.h"
#include "plugin/plugin_kind.h"

namespace dtb::cli {
namespace {

std::string describeRange(const core::ParamSpec& spec) {
  std::string text;
  auto number = [&](double v) {
    return spec.type == DTB_PARAM_FLOAT ? core::formatParamValue(v) : std::to_string(static_cast<int64_t>(v));
  };
  if (spec.minValue && spec.maxValue) {
    text = "range " + number(*spec.minValue) + ".." + number(*spec.maxValue);
  } else if (spec.minValue) {
    text = ">= " + number(*spec.minValue);
  } else if (spec.maxValue) {
    text = "<= " + number(*spec.maxValue);
  }
  if (!spec.choices.empty()) {
    text = "one of";
    for (size_t i = 0; i < spec.choices.size(); ++i) text += (i ? ", " : " ") + spec.choices[i];
  }
  return text;
}

void printParams(const core::LoadedPlugin& plugin) {
  if (plugin.params().empty()) {
    std::printf("    (no parameters)\n");
    return;
  }
  for (const core::ParamSpec& spec : plugin.params()) {
    const std::string def =
        spec.defaultValue ? "default " + core::formatParamValue(*spec.defaultValue) : "REQUIRED";
    std::printf("    %-28s %-8s %s\n", spec.name.c_str(), std::string(core::paramTypeName(spec.type)).c_str(),
                def.c_str());
    std::printf("        %s", spec.doc.c_str());
    const std::string range = describeRange(spec);
    if (!range.empty()) std::printf(" (%s)", range.c_str());
    std::printf("\n");
  }
}

void printPlugin(const core::PluginLoader::Found& found, bool details) {
  const std::string kind(core::kindName(found.kind));
  if (!found.plugin) {
    // A file given by path (with --kind) need not be named dtbench-<kind>-<name>.so.
    const std::string name = core::nameFromFileName(found.kind, found.file.filename().string())
                                 .value_or(found.file.filename().string());
    std::printf("%-9s %-20s BROKEN  %s\n          %s\n", kind.c_str(), name.c_str(), found.file.c_str(),
                found.error.c_str());
    return;
  }
  const core::LoadedPlugin& p = *found.plugin;
  std::printf("%-9s %-20s %-8s ABI %-5s %s%s\n", kind.c_str(), p.name().c_str(), p.version().c_str(),
              p.abiVersion().c_str(), p.path().c_str(), found.shadowed ? "  (shadowed)" : "");
  if (!details) return;
  std::printf("    %s\n", p.description().c_str());
  printParams(p);
}

// --kind's word: the kind as the ABI spells it, or its plural as people say
// it ("--kind strategies"); nullopt for anything else.
std::optional<core::PluginKind> kindFromWord(const std::string& word) {
  for (core::PluginKind kind : core::allPluginKinds()) {
    const std::string singular(core::kindName(kind));
    const std::string plural =
        singular.ends_with('y') ? singular.substr(0, singular.size() - 1) + "ies" : singular + "s";
    if (word == singular || word == plural) return kind;
  }
  return std::nullopt;
}

// The kind a plugin file's name says: dtbench-<kind>-<name>.so.
std::optional<core::PluginKind> kindFromFileName(const std::string& fileName) {
  for (core::PluginKind kind : core::allPluginKinds()) {
    if (core::nameFromFileName(kind, fileName)) return kind;
  }
  return std::nullopt;
}

// " (did you mean 'X'?)" for the plugin on the path whose name is closest to
// `name`, or "". closestName() compares parameter names; plugin names are
// handed to it the same way, as the matrix planner does for its plugins.
std::string suggestion(const std::string& name, const std::vector<core::PluginLoader::Found>& found) {
  std::vector<core::ParamSpec> names;
  for (const auto& entry : found) {
    if (auto known = core::nameFromFileName(entry.kind, entry.file.filename().string())) {
      names.emplace_back().name = *known;
    }
  }
  const std::string best = core::closestName(name, names);
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

// `dtbench plugins PATH` (anything with a '/') or `dtbench plugins FILE.so`
// (a file name, looked up on the plugin path): that one file, loaded as the
// kind --kind or its file name says.
int showFile(const core::PluginLoader& loader, std::optional<core::PluginKind> kind,
             const std::string& spec) {
  namespace fs = std::filesystem;
  std::optional<fs::path> file;
  if (spec.find('/') != std::string::npos) {
    std::error_code ec;
    if (fs::exists(spec, ec)) file = spec;
  } else {
    file = loader.searchPath().findFile(spec);
  }
  if (!file) {
    std::fprintf(stderr, "dtbench plugins: %s: no such file%s\n", spec.c_str(),
                 spec.find('/') != std::string::npos ? "" : " on the plugin path");
    return 1;
  }
  if (!kind) kind = kindFromFileName(file->filename().string());
  if (!kind) {
    std::fprintf(stderr,
                 "dtbench plugins: %s: the file name does not say the plugin's kind "
                 "(dtbench-<kind>-<name>.so); give it with --kind\n",
                 spec.c_str());
    return 1;
  }
  core::PluginLoader::Found entry{*kind, *file, nullptr, "", false};
  try {
    entry.plugin = loader.loadFile(*kind, *file);
  } catch (const core::PluginError& e) {
    entry.error = e.cause();
  }
  printPlugin(entry, true);
  return entry.plugin ? 0 : 1;
}

int run(const GlobalOptions& global, const std::string& kindText, const std::string& name) {
  std::optional<core::PluginKind> kind;
  if (!kindText.empty()) {
    kind = kindFromWord(kindText);
    if (!kind) {
      std::fprintf(stderr,
                   "dtbench plugins: unknown kind '%s' for --kind; one of strategy, backend, model, "
                   "dataset (or strategies, backends, models, datasets)\n",
                   kindText.c_str());
      return 1;
    }
  }
  core::PluginLoader loader = makeLoader(global);
  if (name.find('/') != std::string::npos || name.ends_with(".so")) return showFile(loader, kind, name);
  std::vector<core::PluginLoader::Found> found = loader.discover(kind);

  if (!name.empty()) {
    bool any = false;
    for (const auto& entry : found) {
      if (core::nameFromFileName(entry.kind, entry.file.filename().string()) != name) continue;
      printPlugin(entry, true);
      any = true;
      if (!entry.plugin) return 1;
    }
    if (!any) {
      const std::string ofKind = kind ? " of kind " + std::string(core::kindName(*kind)) : "";
      std::fprintf(stderr, "dtbench plugins: no plugin named '%s'%s on the plugin path%s\n", name.c_str(),
                   ofKind.c_str(), suggestion(name, found).c_str());
      return 1;
    }
    return 0;
  }

  std::printf("plugin path:");
  for (const auto& dir : loader.searchPath().dirs()) std::printf(" %s", dir.c_str());
  std::printf("%s\n\n", loader.searchPath().dirs().empty() ? " (empty)" : "");
  if (found.empty()) {
    std::printf("no plugins found; add a directory with --plugin-path or DTBENCH_PLUGIN_PATH\n");
    return 0;
  }
  for (const auto& entry : found) printPlugin(entry, true);
  return 0;
}

}  // namespace

void addPluginsCommand(CLI::App& app, GlobalOptions& global) {
  CLI::App* cmd = app.add_subcommand(
      "plugins", "List plugins: kind, name, version, ABI, path and each parameter's type, default and doc");
  addPluginPathOption(*cmd, global);
  cmd->allow_extras(false);
  auto kind = std::make_shared<std::string>();
  auto name = std::make_shared<std::string>();
  // Checked in run(), not by CLI11: the plurals are accepted, and anything
  // else gets a sentence rather than CLI11's set notation.
  cmd->add_option("--kind", *kind, "Only this kind: strategy, backend, model or dataset (or the plural)");
  cmd->add_option("name", *name,
                  "Show only the plugin(s) with this name, or one plugin file: a path, or a file name "
                  "(dtbench-<kind>-<name>.so) on the plugin path");
  cmd->callback([&global, kind, name] { global.exitCode = run(global, *kind, *name); });
}

}  // namespace dtb::cli
