#include "cli/plugins_command.h"

#include <cstdio>
#include <iostream>
#include <optional>
#include <string>

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
    std::printf("%-9s %-20s BROKEN  %s\n          %s\n", kind.c_str(),
                core::nameFromFileName(found.kind, found.file.filename().string())->c_str(),
                found.file.c_str(), found.error.c_str());
    return;
  }
  const core::LoadedPlugin& p = *found.plugin;
  std::printf("%-9s %-20s %-8s ABI %-5s %s%s\n", kind.c_str(), p.name().c_str(), p.version().c_str(),
              p.abiVersion().c_str(), p.path().c_str(), found.shadowed ? "  (shadowed)" : "");
  if (!details) return;
  std::printf("    %s\n", p.description().c_str());
  printParams(p);
}

int run(const GlobalOptions& global, const std::string& kindText, const std::string& name) {
  std::optional<core::PluginKind> kind;
  if (!kindText.empty()) kind = core::parseKind(kindText);
  core::PluginLoader loader = makeLoader(global);
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
      std::fprintf(stderr, "dtbench plugins: no plugin named '%s'%s on the plugin path\n", name.c_str(),
                   kindText.empty() ? "" : (" of kind " + kindText).c_str());
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
  cmd->allow_extras(false);
  auto kind = std::make_shared<std::string>();
  auto name = std::make_shared<std::string>();
  cmd->add_option("--kind", *kind, "Only this kind")
      ->check(CLI::IsMember({"strategy", "backend", "model", "dataset"}));
  cmd->add_option("name", *name, "Show only the plugin(s) with this name");
  cmd->callback([&global, kind, name] { global.exitCode = run(global, *kind, *name); });
}

}  // namespace dtb::cli
