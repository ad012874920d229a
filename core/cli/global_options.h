// Options every dtbench command shares.
#pragma once

#include <string>
#include <vector>

#include "plugin/loader.h"

namespace CLI {
class App;
}

namespace dtb::cli {

struct GlobalOptions {
  std::vector<std::string> pluginDirs;  // --plugin-path, searched before the default path
  int verbosity = 0;                    // -v: info, -vv: debug
  int exitCode = 0;                     // set by the command that ran
};

// --plugin-path DIR on `app`, adding to options.pluginDirs: on dtbench
// itself and again on the commands that load plugins, so that `dtbench run
// --plugin-path DIR m.toml` works as `dtbench --plugin-path DIR run m.toml`.
void addPluginPathOption(CLI::App& app, GlobalOptions& options);

// A loader whose search path is --plugin-path, then the default path.
core::PluginLoader makeLoader(const GlobalOptions& options);

}  // namespace dtb::cli
