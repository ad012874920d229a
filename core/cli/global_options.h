// Options every dtbench command shares.
#pragma once

#include <string>
#include <vector>

#include "plugin/loader.h"

namespace dtb::cli {

struct GlobalOptions {
  std::vector<std::string> pluginDirs;  // --plugin-path, searched before the default path
  int verbosity = 0;                    // -v: info, -vv: debug
  int exitCode = 0;                     // set by the command that ran
};

// A loader whose search path is --plugin-path, then the default path.
core::PluginLoader makeLoader(const GlobalOptions& options);

}  // namespace dtb::cli
