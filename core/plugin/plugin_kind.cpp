#include "plugin/plugin_kind.h"

#include <array>

namespace dtb::core {

namespace {
constexpr std::array kKinds = {PluginKind::kStrategy, PluginKind::kBackend, PluginKind::kModel,
                               PluginKind::kDataset};
constexpr std::string_view kSuffix = ".so";
}  // namespace

std::span<const PluginKind> allPluginKinds() { return kKinds; }

std::string_view kindName(PluginKind kind) {
  switch (kind) {
    case PluginKind::kStrategy:
      return "strategy";
    case PluginKind::kBackend:
      return "backend";
    case PluginKind::kModel:
      return "model";
    case PluginKind::kDataset:
      return "dataset";
  }
  return "?";
}

std::optional<PluginKind> parseKind(std::string_view text) {
  for (PluginKind kind : kKinds) {
    if (kindName(kind) == text) return kind;
  }
  return std::nullopt;
}

dtb_plugin_kind_t toAbiKind(PluginKind kind) {
  switch (kind) {
    case PluginKind::kStrategy:
      return DTB_PLUGIN_STRATEGY;
    case PluginKind::kBackend:
      return DTB_PLUGIN_BACKEND;
    case PluginKind::kModel:
      return DTB_PLUGIN_MODEL;
    case PluginKind::kDataset:
      return DTB_PLUGIN_DATASET;
  }
  return DTB_PLUGIN_STRATEGY;
}

std::string entrySymbol(PluginKind kind, unsigned abiMajor) {
  return "dtb_" + std::string(kindName(kind)) + "_plugin_v" + std::to_string(abiMajor);
}

std::string pluginFileName(PluginKind kind, std::string_view name) {
  return "dtbench-" + std::string(kindName(kind)) + "-" + std::string(name) + std::string(kSuffix);
}

std::optional<std::string> nameFromFileName(PluginKind kind, std::string_view fileName) {
  const std::string prefix = "dtbench-" + std::string(kindName(kind)) + "-";
  if (!fileName.starts_with(prefix) || !fileName.ends_with(kSuffix)) return std::nullopt;
  fileName.remove_prefix(prefix.size());
  fileName.remove_suffix(kSuffix.size());
  if (fileName.empty()) return std::nullopt;
  return std::string(fileName);
}

}  // namespace dtb::core
