// The four plugin kinds and the names derived from them: file names
// (dtbench-<kind>-<name>.so) and entry symbols (dtb_<kind>_plugin_v<major>).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "dtbench/dtbench.h"

namespace dtb::core {

enum class PluginKind { kStrategy, kBackend, kModel, kDataset };

std::span<const PluginKind> allPluginKinds();

// "strategy", "backend", "model", "dataset".
std::string_view kindName(PluginKind kind);
std::optional<PluginKind> parseKind(std::string_view text);

dtb_plugin_kind_t toAbiKind(PluginKind kind);

// "dtb_strategy_plugin_v1".
std::string entrySymbol(PluginKind kind, unsigned abiMajor);

// "dtbench-strategy-zero.so".
std::string pluginFileName(PluginKind kind, std::string_view name);

// The plugin name in a file name of the form dtbench-<kind>-<name>.so; nullopt
// when `fileName` does not follow it.
std::optional<std::string> nameFromFileName(PluginKind kind, std::string_view fileName);

}  // namespace dtb::core
